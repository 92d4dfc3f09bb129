/**
 * Scenario 1: a worker process is SIGKILLed mid-step at random points, again and again, while a
 * second worker and the scheduler run. Every step ends completed with exactly one completion
 * recorded, and a killed worker's steps leave `running` once their lease expired and a sweep ran.
 */
import { afterEach, expect, it } from 'vitest';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { useFaultDatabase } from '../support/database.js';
import { quantile, reportFigures } from '../support/figures.js';
import { runningSteps, stepCounts, allRunsTerminal } from '../support/invariants.js';
import { delay, eventually, randomBetween } from '../support/poll.js';
import { FixtureSet } from '../support/processes.js';
import { startScheduler } from '../support/scheduler.js';
import { trials } from '../support/trials.js';
import { fixtureEvent, spawnWorker, startWorker, workerReady } from '../support/workers.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

const leaseMs = 1_000;
/** The bound documented in docs/reliability.md: lease + sweep interval, with a generous margin. */
const recoveryBoundMs = 15_000;

it('completes every step exactly once however often a worker is killed mid-step', async () => {
  const kills = trials(30);
  const stepsPerKill = 8;
  const scheduler = await startScheduler(db.url, { interval: '200ms' });
  try {
    await startWorker(fixtures, db.url, { id: 'steady', lease: '1s', concurrency: 2 });
    const runIds: string[] = [];
    const held: { stepId: string; lastEvent: string; killedAt: Date }[] = [];
    let next = spawnWorker(fixtures, db.url, { id: 'victim-0', lease: '1s', concurrency: 6 });
    for (let k = 0; k < kills; k++) {
      const victim = next;
      await workerReady(victim);
      // The next victim warms up while this one works.
      next = spawnWorker(fixtures, db.url, { id: `victim-${k + 1}`, lease: '1s', concurrency: 6 });
      const jobs = await db.client.enqueueMany(
        'fault.work',
        Array.from({ length: stepsPerKill }, (_, i) => ({ kill: k, i })),
        { maxAttempts: 1_000 },
      );
      runIds.push(...jobs.map((j) => j.runId));
      await victim.line(fixtureEvent('started'), `${victim.name} to start a step`);
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
    reportFigures('sigkill', {
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
});
