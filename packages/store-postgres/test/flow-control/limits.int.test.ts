import { workflow } from '@cyclone/core';
import { describe, expect, it } from 'vitest';
import { runOfDefinition, runOfJob } from '../../src/tables/runs/new-runs.js';
import { claimOne, leaseExpired, until, useStore } from '../fixture.js';

const fx = useStore();

const claim = (kind: string, limit = 100, leaseMs = 60_000) =>
  fx.store.claim({ kinds: [kind], limit, workerId: 'test-worker', leaseMs });

const running = async (kind: string) =>
  (
    await fx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM cyclone_steps WHERE kind = $1 AND state = 'running'`,
      [kind],
    )
  )[0]!.n;

async function jobs(kind: string, n: number, key?: (i: number) => string | undefined) {
  const runs = Array.from({ length: n }, (_, i) =>
    runOfJob(kind, JSON.stringify(i), { concurrencyKey: key?.(i) ?? null }),
  );
  await fx.store.submit(runs);
  return runs;
}

describe('flow limits: set, list, remove', () => {
  it('lists each kind with its limits, running and held-back steps, and removes one limit at a time', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'lim.a', max: 2, perKey: false });
    await fx.store.setRateLimit({
      kind: 'lim.a',
      limit: 5,
      periodMs: 60_000,
      period: '1m',
      perKey: true,
    });
    await fx.store.setConcurrencyLimit({ kind: 'lim.b', max: 1, perKey: true });
    await jobs('lim.a', 5);
    await claim('lim.a');
    const listed = await fx.store.listLimits();
    expect(listed.map((l) => l.kind)).toEqual(['lim.a', 'lim.b']);
    expect(listed[0]).toEqual({
      kind: 'lim.a',
      concurrency: { max: 2, perKey: false },
      rate: { limit: 5, periodMs: 60_000, period: '1m', perKey: true },
      running: 2,
      waiting: 3,
    });

    expect(await fx.store.removeLimit('lim.a', 'rate')).toBe(true);
    expect((await fx.store.listLimits())[0]!.rate).toBeNull();
    expect(await fx.store.removeLimit('lim.a', 'rate')).toBe(false);
    expect(await fx.store.removeLimit('lim.a', 'concurrency')).toBe(true);
    expect((await fx.store.listLimits()).map((l) => l.kind)).toEqual(['lim.b']);
    expect(await fx.store.removeLimit('lim.none', 'concurrency')).toBe(false);
  });
});

describe('a concurrency cap, enforced where steps are claimed', () => {
  it('claims no more than the cap, and a step that ends frees its place at once', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'cap.kind', max: 2, perKey: false });
    await jobs('cap.kind', 5);
    const first = await claim('cap.kind');
    expect(first).toHaveLength(2);
    expect(await claim('cap.kind')).toHaveLength(0);
    await fx.store.complete([
      { stepId: first[0]!.id, claimToken: first[0]!.claimToken, outputJson: 'null' },
    ]);
    expect(await claim('cap.kind')).toHaveLength(1);
    expect(await running('cap.kind')).toBe(2);
  });

  it("wakes the kind's workers when a running step is cancelled, discarded or retried later", async () => {
    await fx.store.setConcurrencyLimit({ kind: 'cap.wake', max: 3, perKey: false });
    const [cancelled, discarded, retried] = await jobs('cap.wake', 4);
    const held = await claim('cap.wake');
    expect(held).toHaveLength(3);
    const step = (runId: string) => held.find((h) => h.runId === runId)!;
    const wakes: string[] = [];
    const subscription = await fx.store.subscribe({ stepsAvailable: (kind) => wakes.push(kind) });
    try {
      const woken = async (what: string) => {
        await until(async () => wakes.includes('cap.wake'), `a wake-up after ${what}`);
        wakes.length = 0;
      };
      await fx.store.cancelRun(cancelled!.id);
      await woken('a cancel');
      const failure = (runId: string, maxAttempts: number) => ({
        stepId: step(runId).id,
        claimToken: step(runId).claimToken,
        errorKind: 'retryable' as const,
        error: 'boom',
        panicStack: null,
        attempts: 0,
        maxAttempts,
        retryDelayMs: 3_600_000,
      });
      expect(await fx.store.fail(failure(discarded!.id, 1))).toBe('discarded');
      await woken('a discard');
      expect(await fx.store.fail(failure(retried!.id, 5))).toBe('retried');
      await woken('a failure retried an hour later');
      expect(await claim('cap.wake')).toHaveLength(1);
    } finally {
      await subscription.close();
    }
  });

  it('counts steps that were running before the cap was set, and frees more when it is raised or removed', async () => {
    await jobs('cap.raise', 6);
    expect(await claim('cap.raise', 3)).toHaveLength(3);
    await fx.store.setConcurrencyLimit({ kind: 'cap.raise', max: 2, perKey: false });
    expect(await claim('cap.raise')).toHaveLength(0);
    await fx.store.setConcurrencyLimit({ kind: 'cap.raise', max: 4, perKey: false });
    expect(await claim('cap.raise')).toHaveLength(1);
    await fx.store.removeLimit('cap.raise', 'concurrency');
    expect(await claim('cap.raise')).toHaveLength(2);
  });

  it('caps per concurrency key, steps without a key forming one group of their own', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'cap.key', max: 1, perKey: true });
    await jobs('cap.key', 7, (i) => ['a', 'a', 'a', 'b', 'b', undefined, undefined][i]);
    const claimed = await claim('cap.key');
    expect(claimed).toHaveLength(3);
    const keys = await fx.query<{ concurrency_key: string | null }>(
      `SELECT concurrency_key FROM cyclone_steps WHERE kind = 'cap.key' AND state = 'running'
       ORDER BY concurrency_key NULLS LAST`,
    );
    expect(keys.map((k) => k.concurrency_key)).toEqual(['a', 'b', null]);
    expect(await claim('cap.key')).toHaveLength(0);
  });

  it('claims one step of each of 10,000 keys under a per-key cap of 1', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'cap.many', max: 1, perKey: true });
    await jobs('cap.many', 10_000, (i) => `key-${i % 5_000}`);
    let claimed = 0;
    for (let i = 0; i < 20; i++) claimed += (await claim('cap.many', 500)).length;
    expect(claimed).toBe(5_000);
    expect(await claim('cap.many', 500)).toHaveLength(0);
    // Ten thousand jobs and twenty claims over them: seconds on a quiet machine, far more on a
    // loaded one, so the deadline is the work's, not the default test timeout.
  }, 180_000);

  it('frees the place of a step whose lease expired and was reclaimed', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'cap.reclaim', max: 1, perKey: false });
    await jobs('cap.reclaim', 2);
    const [held] = await claim('cap.reclaim', 10, 1);
    expect(await claim('cap.reclaim')).toHaveLength(0);
    await leaseExpired(fx, held!.id);
    expect(await fx.store.reclaimExpired()).toBe(1);
    expect(await claim('cap.reclaim')).toHaveLength(1);
  });

  it('takes a step key from its node path into the run input, or from the submission', async () => {
    const wf = workflow('keyed')
      .task('charge', 'cap.node', { concurrencyKey: 'customer.id' })
      .task('mail', 'cap.node', { dependsOn: ['charge'] })
      .build();
    const run = runOfDefinition(wf, JSON.stringify({ customer: { id: 42 } }), {
      concurrencyKey: 'tenant-7',
      priority: 3,
    });
    expect(run.steps.map((s) => [s.node, s.concurrencyKey, s.priority])).toEqual([
      ['charge', '42', 3],
      ['mail', 'tenant-7', 3],
    ]);
    const missing = runOfDefinition(wf, JSON.stringify({ customer: {} }));
    expect(missing.steps[0]!.concurrencyKey).toBeNull();
  });
});

describe('a rate limit, a sliding window of starts', () => {
  it('starts at most `limit` steps within the period, and explain says until when', async () => {
    await fx.store.setRateLimit({
      kind: 'rate.kind',
      limit: 3,
      periodMs: 3_600_000,
      period: '1h',
      perKey: false,
    });
    await jobs('rate.kind', 5);
    expect(await claim('rate.kind')).toHaveLength(3);
    expect(await claim('rate.kind')).toHaveLength(0);
    const waiting = await fx.query<{ run_id: string }>(
      `SELECT run_id FROM cyclone_steps WHERE kind = 'rate.kind' AND state = 'available' LIMIT 1`,
    );
    const facts = await fx.store.nodeFacts(waiting[0]!.run_id, { node: 'rate.kind' }, 60_000);
    expect(facts).not.toBe('run');
    expect(facts).not.toBe('node');
    const rate = (facts as { limits: { rate: { starts: number; until: Date | null } } }).limits
      .rate;
    expect(rate.starts).toBe(3);
    expect(rate.until!.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
  });

  it('counts starts per key under a per-key limit', async () => {
    await fx.store.setRateLimit({
      kind: 'rate.key',
      limit: 1,
      periodMs: 3_600_000,
      period: '1h',
      perKey: true,
    });
    await jobs('rate.key', 4, (i) => ['x', 'x', 'y', 'y'][i]);
    expect(await claim('rate.key')).toHaveLength(2);
    expect(await claim('rate.key')).toHaveLength(0);
  });

  it('lets the window slide: a start older than the period no longer counts', async () => {
    await fx.store.setRateLimit({
      kind: 'rate.slide',
      limit: 1,
      periodMs: 60_000,
      period: '1m',
      perKey: false,
    });
    await jobs('rate.slide', 2);
    expect(await claim('rate.slide')).toHaveLength(1);
    expect(await claim('rate.slide')).toHaveLength(0);
    // The start is moved back past the period rather than waited out, so a slow machine cannot
    // let the window slide between the first two claims.
    await fx.query(
      `UPDATE cyclone_rate_starts SET at = at - interval '61 seconds' WHERE kind = 'rate.slide'`,
    );
    expect(await claim('rate.slide')).toHaveLength(1);
  });
});

describe('priorities', () => {
  it('claims a higher priority first, then the oldest', async () => {
    const order = [0, 5, -1, 10, 5, 0, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER];
    for (const [i, priority] of order.entries()) {
      await fx.store.submit([runOfJob('prio.kind', JSON.stringify(i), { priority })]);
    }
    const claimed = await claim('prio.kind', 100);
    expect(claimed.map((c) => c.input)).toEqual([6, 3, 1, 4, 0, 5, 2, 7]);
  });

  it('reads the oldest ready step of a kind across its priorities', async () => {
    for (const priority of [3, 0, -2, 7]) {
      await fx.store.submit([runOfJob('prio.oldest', 'null', { priority })]);
    }
    await fx.query(
      `UPDATE cyclone_steps SET scheduled_at = now() - (CASE priority WHEN -2 THEN 90 ELSE 5 END) * interval '1 second'
       WHERE kind = 'prio.oldest'`,
    );
    const { queues } = await fx.store.collectMetrics({ kinds: ['prio.oldest'] });
    expect(queues).toHaveLength(1);
    expect(queues[0]!.ready).toBe(4);
    // The oldest is the step of priority -2, read past the first steps of the priorities above it.
    expect(queues[0]!.oldestReadyAgeSeconds).toBeGreaterThanOrEqual(90);
    expect(queues[0]!.oldestReadyAgeSeconds).toBeLessThan(3_600);
  });

  it('orders by priority within a capped kind too', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'prio.cap', max: 1, perKey: false });
    await fx.store.submit([runOfJob('prio.cap', '"low"', { priority: 1 })]);
    await fx.store.submit([runOfJob('prio.cap', '"high"', { priority: 9 })]);
    const [first] = await claim('prio.cap');
    expect(first!.input).toBe('high');
  });
});

describe('a held-back step', () => {
  it('stays available, labelled AwaitingResource, explained as concurrency_cap', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'held.kind', max: 1, perKey: true });
    const [, waiting] = await jobs('held.kind', 2, () => 'tenant-1');
    await claimOne(fx, 'held.kind');
    const steps = await fx.store.listSteps(waiting!.id);
    expect(steps[0]).toMatchObject({ state: 'available', awaitingResource: true });
    const facts = await fx.store.nodeFacts(waiting!.id, { node: 'held.kind' }, 60_000);
    const limits = (facts as { limits: unknown }).limits;
    expect(limits).toEqual({
      concurrency: { max: 1, perKey: true, key: 'tenant-1', running: 1 },
      rate: null,
    });
  });

  it('is cancelled or paused with its run like any available step', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'held.ops', max: 1, perKey: false });
    const [, cancelled, paused] = await jobs('held.ops', 3);
    await claimOne(fx, 'held.ops');
    await fx.store.cancelRun(cancelled!.id);
    await fx.store.pauseRun(paused!.id);
    const states = await fx.query<{ run_id: string; state: string }>(
      `SELECT run_id, state FROM cyclone_steps WHERE run_id = ANY($1::uuid[])`,
      [[cancelled!.id, paused!.id]],
    );
    expect(Object.fromEntries(states.map((s) => [s.run_id, s.state]))).toEqual({
      [cancelled!.id]: 'cancelled',
      [paused!.id]: 'paused',
    });
    await fx.store.resumeRun(paused!.id);
    expect(await claim('held.ops')).toHaveLength(0);
  });
});
