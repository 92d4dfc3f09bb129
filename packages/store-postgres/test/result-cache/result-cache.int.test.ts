import { cacheKeyOf, workflow } from '@cyclone/core';
import { describe, expect, it } from 'vitest';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { claimOne, useStore } from '../fixture.js';

const fx = useStore();

/** The node's step row of a run. */
async function node(runId: string, name: string) {
  const [row] = await fx.query<{
    id: string;
    state: string;
    output: unknown;
    cached: boolean;
    cache_key: string | null;
    cache_ttl_ms: number | null;
    started_at: Date | null;
    claim_token: string | null;
  }>('SELECT * FROM cyclone_steps WHERE run_id = $1 AND node = $2', [runId, name]);
  if (!row) throw new Error(`no node ${name} in ${runId}`);
  return row;
}

const entries = (kind: string) =>
  fx.query<{ key: string; output: unknown; expires_at: Date; step_id: string }>(
    'SELECT key, output, expires_at, step_id FROM cyclone_cache WHERE kind = $1 ORDER BY key',
    [kind],
  );

async function runClaimed(kind: string, output: unknown) {
  const claimed = await claimOne(fx, kind);
  const accepted = await fx.store.complete([
    { stepId: claimed.id, claimToken: claimed.claimToken, outputJson: JSON.stringify(output) },
  ]);
  expect(accepted.has(claimed.id)).toBe(true);
  return claimed;
}

/** A two-node workflow whose first node is cached by `reportId`; each test its own kind. */
const reportOf = (kind: string) =>
  workflow(`report-${kind}`)
    .task('render', kind, { cache: { ttl: '1h', key: 'reportId' } })
    .task('deliver', `${kind}.deliver`, { dependsOn: ['render'] })
    .build();

describe('result caching with a key path', () => {
  const report = reportOf('cache.render');

  it('runs the first step, keeps its output, and completes the next with it without a claim', async () => {
    const first = runOfDefinition(report, JSON.stringify({ reportId: 'r-1' }));
    await fx.submit(first);
    // The miss promotes the step as usual and keeps the key its output will be stored under.
    expect(await node(first.id, 'render')).toMatchObject({
      state: 'available',
      cache_key: 'r-1',
      cached: false,
    });
    expect(await entries('cache.render')).toEqual([]);
    await runClaimed('cache.render', { pages: 3 });
    const [entry] = await entries('cache.render');
    expect(entry).toMatchObject({ key: 'r-1', output: { pages: 3 } });
    const [ttl] = await fx.query<{ hour: boolean }>(
      `SELECT abs(extract(epoch FROM expires_at - now()) - 3600) < 60 AS hour
       FROM cyclone_cache WHERE kind = 'cache.render'`,
    );
    expect(ttl?.hour).toBe(true);

    const second = runOfDefinition(report, JSON.stringify({ reportId: 'r-1', other: true }));
    await fx.submit(second);
    const render = await node(second.id, 'render');
    expect(render).toMatchObject({
      state: 'completed',
      cached: true,
      output: { pages: 3 },
      started_at: null,
      claim_token: null,
    });
    // Its dependent is ready at once and reads the cached output like any other.
    expect((await node(second.id, 'deliver')).state).toBe('available');
    const history = await fx.events(second.id);
    expect(history).toContainEqual(['step_cached', 'pending', 'completed', 'cache_hit']);
    expect(history.filter(([type]) => type === 'step_started')).toEqual([]);
    const steps = await fx.store.listSteps(second.id);
    expect(steps.find((s) => s.node === 'render')).toMatchObject({ cached: true });
    expect(steps.find((s) => s.node === 'deliver')).toMatchObject({ cached: false });
    // A hit neither extends nor replaces the entry.
    expect(await entries('cache.render')).toEqual([entry]);
  });

  it('does not cache a run whose input lacks the key field: the step runs as usual', async () => {
    const run = runOfDefinition(report, JSON.stringify({ other: 1 }));
    await fx.submit(run);
    expect(await node(run.id, 'render')).toMatchObject({
      state: 'available',
      cache_ttl_ms: null,
      cache_key: null,
    });
  });

  it('never fills the cache from a discarded step', async () => {
    const report = reportOf('cache.fail');
    const run = runOfDefinition(report, JSON.stringify({ reportId: 'r-fail' }));
    await fx.submit(run);
    const claimed = await claimOne(fx, 'cache.fail');
    await fx.store.fail({
      stepId: claimed.id,
      claimToken: claimed.claimToken,
      errorKind: 'permanent',
      error: 'bad template',
      panicStack: null,
      attempts: 0,
      maxAttempts: 3,
      retryDelayMs: 0,
    });
    expect((await node(run.id, 'render')).state).toBe('discarded');
    expect(await entries('cache.fail')).toEqual([]);
  });

  it('lets two runs with the same key at the same moment both run, the later success kept', async () => {
    const report = reportOf('cache.race');
    const a = runOfDefinition(report, JSON.stringify({ reportId: 'r-race' }));
    const b = runOfDefinition(report, JSON.stringify({ reportId: 'r-race' }));
    await fx.submit(a, b);
    expect((await node(a.id, 'render')).state).toBe('available');
    expect((await node(b.id, 'render')).state).toBe('available');
    await runClaimed('cache.race', 'first');
    await runClaimed('cache.race', 'second');
    const raced = await entries('cache.race');
    expect(raced.map((e) => e.output)).toEqual(['second']);
  });

  it('misses an expired entry, and the expiry scanner deletes it', async () => {
    const report = reportOf('cache.old');
    const run = runOfDefinition(report, JSON.stringify({ reportId: 'r-old' }));
    await fx.submit(run);
    await runClaimed('cache.old', 'old');
    await fx.query(
      `UPDATE cyclone_cache SET expires_at = now() - interval '1 second' WHERE key = 'r-old'`,
    );
    const later = runOfDefinition(report, JSON.stringify({ reportId: 'r-old' }));
    await fx.submit(later);
    expect(await node(later.id, 'render')).toMatchObject({ state: 'available', cached: false });
    expect(await fx.store.deleteExpiredCache(100)).toBeGreaterThanOrEqual(1);
    expect(await entries('cache.old')).toEqual([]);
  });

  it('in a paused run, looks the key up at the resume, not before', async () => {
    const seeded = runOfDefinition(
      reportOf('cache.paused'),
      JSON.stringify({ reportId: 'r-pause' }),
    );
    await fx.submit(seeded);
    await runClaimed('cache.paused', 'seeded');

    const chained = workflow('cache-chain')
      .task('prepare', 'cache.prepare')
      .task('render', 'cache.paused', {
        dependsOn: ['prepare'],
        cache: { ttl: '1h', key: 'reportId' },
      })
      .build();
    const run = runOfDefinition(chained, JSON.stringify({ reportId: 'r-pause' }));
    await fx.submit(run);
    const prepare = await claimOne(fx, 'cache.prepare');
    await fx.store.pauseRun(run.id);
    await fx.store.complete([
      { stepId: prepare.id, claimToken: prepare.claimToken, outputJson: '1' },
    ]);
    expect((await node(run.id, 'render')).state).toBe('pending');
    await fx.store.settlePending();
    expect((await node(run.id, 'render')).state).toBe('pending');
    await fx.store.resumeRun(run.id);
    expect(await node(run.id, 'render')).toMatchObject({
      state: 'completed',
      cached: true,
      output: 'seeded',
    });
    expect((await fx.run(run.id)).state).toBe('completed');
  });
});

describe('result caching with the default key', () => {
  const pipeline = workflow('cache-hash')
    .task('fetch', 'hash.fetch')
    .task('render', 'hash.render', { dependsOn: ['fetch'], cache: { ttl: '10m' } })
    .build();

  it('keys by kind, run input and dependency outputs', async () => {
    const input = { region: 'eu' };
    const first = runOfDefinition(pipeline, JSON.stringify(input));
    await fx.submit(first);
    await runClaimed('hash.fetch', { rows: [1, 2] });
    const expected = cacheKeyOf({
      kind: 'hash.render',
      cache: {},
      input,
      deps: { fetch: { rows: [1, 2] } },
    });
    expect(await node(first.id, 'render')).toMatchObject({
      state: 'available',
      cache_key: expected,
    });
    await runClaimed('hash.render', 'rendered');

    // Same input, same dependency output: a hit.
    const same = runOfDefinition(pipeline, JSON.stringify(input));
    await fx.submit(same);
    await runClaimed('hash.fetch', { rows: [1, 2] });
    expect(await node(same.id, 'render')).toMatchObject({
      state: 'completed',
      cached: true,
      output: 'rendered',
    });
    expect((await fx.run(same.id)).state).toBe('completed');

    // Another dependency output: a miss.
    const other = runOfDefinition(pipeline, JSON.stringify(input));
    await fx.submit(other);
    await runClaimed('hash.fetch', { rows: [3] });
    expect(await node(other.id, 'render')).toMatchObject({ state: 'available', cached: false });
  });

  it('completes a root cached task at submit on a hit, and the run with it', async () => {
    const single = workflow('cache-root')
      .task('only', 'root.only', { cache: { ttl: '1m' } })
      .build();
    const first = runOfDefinition(single, JSON.stringify({ n: 1 }));
    await fx.submit(first);
    expect((await node(first.id, 'only')).state).toBe('available');
    await runClaimed('root.only', 42);
    const again = runOfDefinition(single, JSON.stringify({ n: 1 }));
    await fx.submit(again);
    expect(await node(again.id, 'only')).toMatchObject({ state: 'completed', output: 42 });
    expect((await fx.run(again.id)).state).toBe('completed');
  });
});
