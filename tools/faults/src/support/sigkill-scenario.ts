/**
 * The body of scenario 1 (a worker process SIGKILLed mid-step, again and again, while a second
 * worker and the scheduler run), so the pooler suite runs the same scenario through a pooler.
 * Every step ends completed with exactly one completion recorded, and a killed worker's steps
 * leave `running` once their lease expired and a sweep ran.
 */
import { expect } from 'vitest';
import { expectEventsFollowTable } from '@cyclone/test-db';
import type { FaultDatabase } from './database.js';
import { quantile, reportFigures } from './figures.js';
import { runningSteps, stepCounts, allRunsTerminal } from './invariants.js';
import { delay, eventually, randomBetween } from './poll.js';
import type { FixtureSet } from './processes.js';
import { startScheduler } from './scheduler.js';
import { fixtureEvent, spawnWorker, startWorker, workerReady } from './workers.js';

/** Options of {@link sigkillMidStep}. */
export interface SigkillOptions {
  /** The figures' scenario name (`sigkill`). */
  readonly scenario: string;
  /** How many workers are killed. */
  readonly kills: number;
  /** Where the workers and the scheduler connect. @defaultValue the scenario database's URL */
  readonly url?: string;
  /** Their `pooler` option. */
  readonly pooler?: 'transaction';
}

const leaseMs = 1_000;
/** The bound documented in docs/reliability.md: lease + sweep interval, with a generous margin. */
const recoveryBoundMs = 15_000;

/** Runs the scenario on `db` with processes of `fixtures`, and asserts its promises. */
export async function sigkillMidStep(
  db: FaultDatabase,
  fixtures: FixtureSet,
  options: SigkillOptions,
): Promise<void> {
  const { kills, pooler } = options;
  const url = options.url ?? db.url;
  const via = pooler ? { pooler } : {};
  const stepsPerKill = 8;
  const scheduler = await startScheduler(url, { interval: '200ms', ...via });
  try {
    await startWorker(fixtures, url, { id: 'steady', lease: '1s', concurrency: 2, ...via });
    const runIds: string[] = [];
    const held: { stepId: string; lastEvent: string; killedAt: Date }[] = [];
    let next = spawnWorker(fixtures, url, {
      id: 'victim-0',
      lease: '1s',
      concurrency: 6,
      ...via,
    });
    for (let k = 0; k < kills; k++) {
      const victim = next;
      await workerReady(victim);
      const jobs = await db.client.enqueueMany(
        'fault.work',
        Array.from({ length: stepsPerKill }, (_, i) => ({ kill: k, i })),
        { maxAttempts: 1_000 },
      );
      runIds.push(...jobs.map((j) => j.runId));
      await victim.line(fixtureEvent('started'), `${victim.name} to start a step`);
      // The next victim warms up while this one works. Started only now: a worker claims as soon
      // as it is up, so one started before this round's steps were taken could take them all
      // first and leave the victim none to be killed in.
      next = spawnWorker(fixtures, url, {
        id: `victim-${k + 1}`,
        lease: '1s',
        concurrency: 6,
        ...via,
      });
      await delay(randomBetween(0, 200));
      const [{ now }] = (await db.query<{ now: Date }>('SELECT clock_timestamp() AS now')) as [
        { now: Date },
      ];
      await victim.kill();
      // With each held step, its last event so far: what follows it is the step's recovery
      // (a completion the dead worker had sent may still commit, with an earlier timestamp).
      const rows = await db.query<{ id: string; last_event: string }>(
        `SELECT s.id, (SELECT max(e.id) FROM cyclone_history e WHERE e.step_id = s.id) AS last_event
         FROM cyclone_steps s WHERE s.state = 'running' AND s.claimed_by = $1`,
        [victim.name],
      );
      for (const row of rows)
        held.push({ stepId: row.id, lastEvent: row.last_event, killedAt: now });
    }
    await next.kill();

    await eventually(() => allRunsTerminal(db.pool, runIds), 'every run to end', 120_000, 200);
    const counts = await stepCounts(db.pool, runIds);
    const recoveries = await db.query<{ step_id: string; ms: number }>(
      `SELECT h.step_id,
              greatest(0, extract(epoch FROM (min(e.at) - h.killed_at)) * 1000) AS ms
       FROM unnest($1::uuid[], $2::timestamptz[], $3::bigint[]) AS h(step_id, killed_at, last_event)
       JOIN cyclone_history e ON e.step_id = h.step_id AND e.id > h.last_event
                            AND e.type IN ('step_reclaimed', 'step_completed')
       GROUP BY h.step_id, h.killed_at`,
      [held.map((h) => h.stepId), held.map((h) => h.killedAt), held.map((h) => h.lastEvent)],
    );
    const recoveryMs = recoveries.map((r) => Number(r.ms));
    reportFigures(options.scenario, {
      kills,
      steps: counts.steps,
      held_at_kill: held.length,
      lost: counts.steps - (counts.byState.completed ?? 0),
      double: counts.doubleCompleted,
      duplicate_exec: counts.duplicateExecutions,
      reclaims: counts.reclaims,
      recovery_p50_ms: quantile(recoveryMs, 0.5),
      recovery_p99_ms: quantile(recoveryMs, 0.99),
      recovery_max_ms: quantile(recoveryMs, 1),
    });

    expect(counts.steps).toBe(kills * stepsPerKill);
    expect(counts.byState).toEqual({ completed: kills * stepsPerKill });
    expect(counts.doubleCompleted).toBe(0);
    expect(counts.completedWithoutEvent).toBe(0);
    expect(await runningSteps(db.pool)).toBe(0);
    // Every step a killed worker held left `running` (reclaimed, or its completion had committed).
    expect(recoveries).toHaveLength(held.length);
    for (const ms of recoveryMs) expect(ms).toBeLessThan(recoveryBoundMs + leaseMs);
    await expectEventsFollowTable(db.pool);
  } finally {
    await scheduler.stop();
  }
}
