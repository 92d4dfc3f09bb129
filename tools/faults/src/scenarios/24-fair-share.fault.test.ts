/**
 * Scenario 24: fair share under real workers. Three worker processes drain a kind under fair share
 * while a sampler reads its running steps per concurrency key every few milliseconds: with weights
 * 3:1:1 and every key saturated, the handlers' first 1,000 starts (by their own clocks, across the
 * processes) share within 10 % of 60/20/20, and the sampler sees the three keys running side by
 * side most of the time (oldest first would run one key's backlog alone); and a key whose
 * steps arrive behind 1,000 of another key's has all of them started before 40 more of the other
 * key's start. The turn is one row in the database, so the processes take the keys in one round,
 * not a round each. Every step completes exactly once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { PostgresStore, runOfJob } from '@cyclone/store-postgres';
import { useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { allRunsTerminal, runningSteps, stepCounts } from '../support/invariants.js';
import { eventually } from '../support/poll.js';
import { FixtureSet, type FixtureProcess } from '../support/processes.js';
import { handlerStarts, ShareSampler } from '../support/share-sampler.js';
import { startWorker } from '../support/workers.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

const kind = 'fault.work';

/** Three worker processes of concurrency 5, started side by side. */
function startWorkers(prefix: string): Promise<FixtureProcess[]> {
  return Promise.all(
    [0, 1, 2].map((i) =>
      startWorker(fixtures, db.url, {
        id: `${prefix}-${i}`,
        concurrency: 5,
        lease: '10s',
        kinds: [kind],
      }),
    ),
  );
}

/** Enqueues `n` steps of `key`, each running `workMs`, in one transaction; returns their runs. */
async function enqueue(key: string, n: number, workMs: number): Promise<string[]> {
  const store = new PostgresStore({ pool: db.pool });
  const runs = Array.from({ length: n }, (_, i) =>
    runOfJob(kind, JSON.stringify({ i, workMs }), { concurrencyKey: key }),
  );
  await store.submit(runs);
  return runs.map((r) => r.id);
}

/** The concurrency key of each step of `runIds`, by step id. */
async function keysOf(runIds: readonly string[]): Promise<Map<string, string>> {
  const rows = await db.query<{ id: string; key: string }>(
    `SELECT id, concurrency_key AS key FROM cyclone_steps WHERE run_id = ANY($1::uuid[])`,
    [runIds],
  );
  return new Map(rows.map((r) => [r.id, r.key]));
}

/** Every step completed once, executed once, nothing running. */
async function expectEachCompletedOnce(runIds: readonly string[]): Promise<void> {
  const counts = await stepCounts(db.pool, runIds);
  expect(counts.byState).toEqual({ completed: runIds.length });
  expect(counts.doubleCompleted).toBe(0);
  expect(counts.completedWithoutEvent).toBe(0);
  expect(counts.duplicateExecutions).toBe(0);
  expect(await runningSteps(db.pool)).toBe(0);
}

const round2 = (n: number) => Math.round(n * 100) / 100;

describe('fair share under three worker processes', () => {
  it('shares starts 3:1:1 within 10 % of 60/20/20, the keys running side by side', async () => {
    await db.client.setFairShare({ kind, weights: { heavy: 3 } });
    // In proportion to the weights, so every key has steps until near the end of the drain.
    const runIds = [
      ...(await enqueue('heavy', 900, 20)),
      ...(await enqueue('light-1', 300, 20)),
      ...(await enqueue('light-2', 300, 20)),
    ];
    const sampler = await new ShareSampler(db.url, kind, ['heavy', 'light-1', 'light-2']).start();
    const t0 = performance.now();
    let workers: FixtureProcess[] = [];
    let samples;
    try {
      workers = await startWorkers('weights');
      await eventually(() => allRunsTerminal(db.pool, runIds), 'every run to end', 120_000, 50);
    } finally {
      samples = await sampler.stop();
    }
    const seconds = (performance.now() - t0) / 1000;
    const keys = await keysOf(runIds);
    const starts = handlerStarts(workers).slice(0, 1_000);
    const startShare = (key: string) =>
      starts.filter((s) => keys.get(s.stepId) === key).length / starts.length;
    const ranBy = new Set(starts.map((s) => s.worker));
    reportFigures('fair-weights', {
      steps: runIds.length,
      workers: workers.length,
      workers_that_ran: ranBy.size,
      samples: samples.samples,
      busy_samples: samples.busySamples,
      all_keys_running_share: round2(samples.allKeysSamples / samples.busySamples),
      start_share_heavy: round2(startShare('heavy')),
      start_share_light_1: round2(startShare('light-1')),
      start_share_light_2: round2(startShare('light-2')),
      running_share_heavy: round2(samples.shares.get('heavy') ?? 0),
      running_share_light_1: round2(samples.shares.get('light-1') ?? 0),
      running_share_light_2: round2(samples.shares.get('light-2') ?? 0),
      drain_ms: seconds * 1000,
    });
    expect(starts).toHaveLength(1_000);
    // Every process took part: the shares are of the three together.
    expect(ranBy.size).toBe(3);
    expect(Math.abs(startShare('heavy') - 0.6)).toBeLessThan(0.06);
    expect(Math.abs(startShare('light-1') - 0.2)).toBeLessThan(0.02);
    expect(Math.abs(startShare('light-2') - 0.2)).toBeLessThan(0.02);
    // Seen from the table: the three keys ran side by side most of the time, where oldest first
    // would run heavy's 900 (enqueued first), then light-1's 300, then light-2's, hardly ever
    // two keys at once. The running shares are reported, not asserted: they weigh each step by
    // how long it stayed running, claim to completion, which the load of the machine stretches
    // unevenly.
    expect(samples.busySamples).toBeGreaterThan(20);
    expect(samples.allKeysSamples / samples.busySamples).toBeGreaterThan(0.5);
    await expectEachCompletedOnce(runIds);
    await expectEventsFollowTable(db.pool);
  });

  it("starts all of a later key's 10 steps before 40 more of a backlogged key's", async () => {
    await db.client.setFairShare({ kind });
    const backlog = await enqueue('A', 1_000, 5);
    const sampler = await new ShareSampler(db.url, kind, ['A', 'B']).start();
    const t0 = performance.now();
    let workers: FixtureProcess[] = [];
    let samples;
    let later: string[] = [];
    let mark = 0;
    try {
      workers = await startWorkers('turn');
      // The backlog is under way in every process before the other key's steps arrive.
      await eventually(() => handlerStarts(workers).length >= 100, "100 of A's to start");
      mark = Date.now();
      later = await enqueue('B', 10, 5);
      const runIds = [...backlog, ...later];
      await eventually(() => allRunsTerminal(db.pool, runIds), 'every run to end', 120_000, 50);
    } finally {
      samples = await sampler.stop();
    }
    const seconds = (performance.now() - t0) / 1000;
    const keys = await keysOf([...backlog, ...later]);
    const starts = handlerStarts(workers);
    const lastB = starts.findLastIndex((s) => keys.get(s.stepId) === 'B');
    const aBetween = starts
      .slice(0, lastB + 1)
      .filter((s) => s.at >= mark && keys.get(s.stepId) === 'A').length;
    const bStarted = starts.filter((s) => keys.get(s.stepId) === 'B').length;
    reportFigures('fair-turn', {
      steps: backlog.length + later.length,
      workers: workers.length,
      samples: samples.samples,
      both_keys_running_samples: samples.allKeysSamples,
      b_started: bStarted,
      a_started_until_last_b: aBetween,
      drain_ms: seconds * 1000,
    });
    expect(bStarted).toBe(10);
    expect(aBetween).toBeLessThan(40);
    await expectEachCompletedOnce([...backlog, ...later]);
    await expectEventsFollowTable(db.pool);
  });
});
