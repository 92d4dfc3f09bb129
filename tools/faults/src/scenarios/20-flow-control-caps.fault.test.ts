/**
 * Scenario 20: concurrency caps under real workers. Three worker processes (concurrency 10 each)
 * drain a kind capped far below what they could run, while a sampler reads `cyclone_steps` every
 * few milliseconds: the count of running steps never passes the cap (per key under a per-key cap),
 * the handlers' own start and return times never overlap more than the cap either, and every step
 * completes exactly once. The same with two keys, with 10,000 keys, and with a worker SIGKILLed
 * while it holds a place: its step holds the place until its lease is reclaimed, then runs again
 * elsewhere, and nothing is lost.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { PostgresStore, runOfJob } from '@cyclone/store-postgres';
import { CapSampler, handlerSpans, mostAtOnce, type CapSamples } from '../support/cap-sampler.js';
import { useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { allRunsTerminal, runningSteps, stepCounts } from '../support/invariants.js';
import { eventually } from '../support/poll.js';
import { FixtureSet, type FixtureProcess } from '../support/processes.js';
import { startScheduler } from '../support/scheduler.js';
import { fixtureEvent, startWorker, type WorkerProcessOptions } from '../support/workers.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

const kind = 'fault.work';

/** One step to enqueue: its concurrency key (or none) and how long its handler runs. */
interface StepSpec {
  readonly key: string | null;
  readonly workMs: number;
}

/** Three worker processes of concurrency 10, started side by side. */
function startWorkers(
  prefix: string,
  options: Partial<WorkerProcessOptions> = {},
): Promise<FixtureProcess[]> {
  return Promise.all(
    [0, 1, 2].map((i) =>
      startWorker(fixtures, db.url, {
        id: `${prefix}-${i}`,
        concurrency: 10,
        lease: '10s',
        kinds: [kind],
        ...options,
      }),
    ),
  );
}

/** Enqueues the steps in one transaction per 2,000 (every worker is woken at once) and returns their runs. */
async function enqueue(steps: readonly StepSpec[]): Promise<string[]> {
  const store = new PostgresStore({ pool: db.pool });
  const runIds: string[] = [];
  for (let start = 0; start < steps.length; start += 2_000) {
    const runs = steps.slice(start, start + 2_000).map((s, i) =>
      runOfJob(kind, JSON.stringify({ i: start + i, workMs: s.workMs }), {
        concurrencyKey: s.key,
        maxAttempts: 100,
      }),
    );
    await store.submit(runs);
    runIds.push(...runs.map((r) => r.id));
  }
  return runIds;
}

/** The concurrency key of each step of `runIds`, by step id. */
async function keysOf(runIds: readonly string[]): Promise<Map<string, string>> {
  const rows = await db.query<{ id: string; key: string | null }>(
    `SELECT id, concurrency_key AS key FROM cyclone_steps WHERE run_id = ANY($1::uuid[])`,
    [runIds],
  );
  return new Map(rows.map((r) => [r.id, r.key ?? '(none)']));
}

/** Every step completed once, executed once (unless `reexecuted` allows more), nothing running. */
async function expectEachCompletedOnce(runIds: readonly string[], reexecuted = 0): Promise<void> {
  const counts = await stepCounts(db.pool, runIds);
  expect(counts.byState).toEqual({ completed: runIds.length });
  expect(counts.doubleCompleted).toBe(0);
  expect(counts.completedWithoutEvent).toBe(0);
  expect(counts.duplicateExecutions).toBeLessThanOrEqual(reexecuted);
  expect(await runningSteps(db.pool)).toBe(0);
}

/**
 * Enqueues `steps` while the sampler reads the kind, runs `during` (a fault), and waits until every
 * run ended; resolves with the runs, what the sampler saw and how long the drain took.
 */
async function drainSampled(
  steps: readonly StepSpec[],
  during: () => Promise<void> = () => Promise.resolve(),
  timeoutMs = 60_000,
): Promise<{ runIds: string[]; samples: CapSamples; seconds: number }> {
  const sampler = await new CapSampler(db.url, kind).start();
  const t0 = performance.now();
  let runIds: string[] = [];
  let samples: CapSamples;
  try {
    runIds = await enqueue(steps);
    await during();
    await eventually(() => allRunsTerminal(db.pool, runIds), 'every run to end', timeoutMs, 50);
  } finally {
    samples = await sampler.stop();
  }
  return { runIds, samples, seconds: (performance.now() - t0) / 1000 };
}

describe('a concurrency cap under three worker processes', () => {
  it('never runs more than 2 steps of a kind capped at 2, and completes each step once', async () => {
    await db.client.setConcurrencyLimit({ kind, max: 2 });
    const workers = await startWorkers('cap');
    const steps = Array.from({ length: 60 }, (_, i) => ({ key: null, workMs: 20 + (i % 5) * 10 }));
    const { runIds, samples, seconds } = await drainSampled(steps);
    const spans = handlerSpans(workers);
    const ranBy = new Set(workers.filter((w) => w.lines.some(fixtureEvent('started'))));
    reportFigures('cap-kind', {
      steps: steps.length,
      workers: workers.length,
      samples: samples.samples,
      max_running: samples.maxRunning,
      max_handlers: mostAtOnce(spans),
      workers_that_ran: ranBy.size,
      drain_ms: seconds * 1000,
    });
    expect(samples.samples).toBeGreaterThan(20);
    expect(samples.maxRunning).toBeLessThanOrEqual(2);
    expect(spans).toHaveLength(steps.length);
    expect(mostAtOnce(spans)).toBeLessThanOrEqual(2);
    // The cap was reached: the test saw the race it is about, not a trickle.
    expect(mostAtOnce(spans)).toBe(2);
    await expectEachCompletedOnce(runIds);
    await expectEventsFollowTable(db.pool);
  });

  it('never runs two steps of one key at once under a per-key cap of 1, with two keys', async () => {
    await db.client.setConcurrencyLimit({ kind, max: 1, perKey: true });
    const workers = await startWorkers('two-keys');
    const steps = Array.from({ length: 40 }, (_, i) => ({
      key: i % 2 === 0 ? 'tenant-a' : 'tenant-b',
      workMs: 20 + (i % 4) * 10,
    }));
    const { runIds, samples, seconds } = await drainSampled(steps);
    const keys = await keysOf(runIds);
    const spans = handlerSpans(workers);
    const perKey = mostAtOnce(spans, (s) => keys.get(s.stepId)!);
    reportFigures('cap-two-keys', {
      steps: steps.length,
      samples: samples.samples,
      max_running: samples.maxRunning,
      max_per_key: samples.maxPerKey,
      max_handlers_per_key: perKey,
      max_handlers: mostAtOnce(spans),
      drain_ms: seconds * 1000,
    });
    expect(samples.maxPerKey).toBeLessThanOrEqual(1);
    expect(samples.maxRunning).toBeLessThanOrEqual(2);
    expect(perKey).toBe(1);
    // The cap is per key: the two keys ran side by side.
    expect(mostAtOnce(spans)).toBe(2);
    await expectEachCompletedOnce(runIds);
    await expectEventsFollowTable(db.pool);
  });

  it('runs every key of 10,000 under a per-key cap of 1, never two steps of one key at once', async () => {
    await db.client.setConcurrencyLimit({ kind, max: 1, perKey: true });
    // Concurrency 50: bigger claims, so the 10,000 keys drain in seconds.
    const workers = await startWorkers('many-keys', { concurrency: 50 });
    // Every key has one step; 200 of them have three more, which must take turns.
    const steps: StepSpec[] = [
      ...Array.from({ length: 10_000 }, (_, k) => ({ key: `key-${k}`, workMs: 1 })),
      ...Array.from({ length: 600 }, (_, i) => ({ key: `key-${(i % 200) * 50}`, workMs: 5 })),
    ];
    const { runIds, samples, seconds } = await drainSampled(steps, undefined, 150_000);
    const keys = await keysOf(runIds);
    const spans = handlerSpans(workers);
    const perKey = mostAtOnce(spans, (s) => keys.get(s.stepId)!);
    const ranKeys = await db.query<{ keys: number }>(
      `SELECT count(DISTINCT concurrency_key)::int AS keys FROM cyclone_steps
       WHERE run_id = ANY($1::uuid[]) AND state = 'completed'`,
      [runIds],
    );
    reportFigures('cap-10k-keys', {
      steps: steps.length,
      keys: ranKeys[0]!.keys,
      samples: samples.samples,
      max_running: samples.maxRunning,
      max_per_key: samples.maxPerKey,
      max_handlers_per_key: perKey,
      max_handlers: mostAtOnce(spans),
      drain_ms: seconds * 1000,
    });
    expect(ranKeys[0]!.keys).toBe(10_000);
    expect(samples.maxPerKey).toBeLessThanOrEqual(1);
    expect(perKey).toBe(1);
    // Many keys ran side by side: the cap held each key, not the kind.
    expect(mostAtOnce(spans)).toBeGreaterThan(1);
    await expectEachCompletedOnce(runIds);
  });

  it('holds the cap while a SIGKILLed worker holds a place, reclaims its step and loses nothing', async () => {
    await db.client.setConcurrencyLimit({ kind, max: 2 });
    const scheduler = await startScheduler(db.url, { interval: '200ms' });
    try {
      const workers = await startWorkers('kill', { lease: '1s' });
      const steps = Array.from({ length: 30 }, () => ({ key: null, workMs: 150 }));
      let victim: FixtureProcess | undefined;
      let killedAt = 0;
      let heldStep = '';
      const { runIds, samples, seconds } = await drainSampled(steps, async () => {
        // Kill the first worker seen running a step, mid-step.
        const started = await eventually(() => {
          for (const worker of workers) {
            const line = worker.lines.find(fixtureEvent('started'));
            if (line) return { worker, line };
          }
          return undefined;
        }, 'a worker to start a step');
        victim = started.worker;
        heldStep = started.line.stepId as string;
        await victim.kill();
        killedAt = Date.now();
      });
      const spans = handlerSpans(
        workers.map((w) => (w === victim ? { lines: w.lines, killedAt } : { lines: w.lines })),
      );
      const reclaimed = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM cyclone_history
         WHERE step_id = $1 AND type = 'step_reclaimed'`,
        [heldStep],
      );
      const counts = await stepCounts(db.pool, runIds);
      reportFigures('cap-sigkill', {
        steps: steps.length,
        samples: samples.samples,
        max_running: samples.maxRunning,
        max_handlers: mostAtOnce(spans),
        reclaimed_held_step: reclaimed[0]!.n,
        reclaims: counts.reclaims,
        duplicate_exec: counts.duplicateExecutions,
        drain_ms: seconds * 1000,
      });
      expect(samples.maxRunning).toBeLessThanOrEqual(2);
      expect(mostAtOnce(spans)).toBeLessThanOrEqual(2);
      // The killed worker's step was reclaimed (its place freed) and ran again to completion.
      expect(reclaimed[0]!.n).toBeGreaterThanOrEqual(1);
      // Only the steps the killed worker held (at most the cap) may have run twice.
      await expectEachCompletedOnce(runIds, 2);
      await expectEventsFollowTable(db.pool);
    } finally {
      await scheduler.stop();
    }
  });
});
