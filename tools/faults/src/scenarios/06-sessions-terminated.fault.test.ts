/**
 * Scenario 6: every session of the workers and the scheduler is ended with
 * `pg_terminate_backend` about once a second while they work through a load. Nothing is lost,
 * nothing completes twice, and each worker's LISTEN session is back within a stated bound.
 */
import { afterEach, expect, it } from 'vitest';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { useFaultDatabase } from '../support/database.js';
import { quantile, reportFigures } from '../support/figures.js';
import { allRunsTerminal, runningSteps, stepCounts } from '../support/invariants.js';
import { delay, eventually, randomBetween } from '../support/poll.js';
import { FixtureSet } from '../support/processes.js';
import { startScheduler } from '../support/scheduler.js';
import { sessionsOf, terminateSessions } from '../support/sessions.js';
import { trials } from '../support/trials.js';
import { startWorker } from '../support/workers.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

/** The reconnect bound documented in docs/reliability.md. */
const reconnectBoundMs = 10_000;
const workerIds = ['term-w1', 'term-w2'];

it('loses nothing and completes nothing twice while every session is terminated every second', async () => {
  const rounds = trials(12, 3);
  const scheduler = await startScheduler(db.url, { interval: '200ms', name: 'term-scheduler' });
  try {
    for (const id of workerIds) {
      await startWorker(fixtures, db.url, { id, lease: '2s', concurrency: 4, workMs: '100-500' });
    }
    const runIds: string[] = [];
    let terminated = 0;
    let inFlightAtTermination = 0;
    const reconnectMs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      // Load keeps arriving, so that every termination hits work in flight.
      const jobs = await db.client.enqueueMany(
        'fault.work',
        Array.from({ length: 25 }, (_, i) => ({ round: r, i })),
        { maxAttempts: 1_000 },
      );
      runIds.push(...jobs.map((j) => j.runId));
      await delay(randomBetween(500, 1_000));
      inFlightAtTermination += await runningSteps(db.pool, runIds);
      terminated += await terminateSessions(db.pool, 'term-%');
      const at = Date.now();
      // Each worker listens again: its LISTEN session is back.
      for (const id of workerIds) {
        await eventually(
          async () => (await sessionsOf(db.pool, id)).some((s) => s.query.startsWith('LISTEN')),
          `${id} to listen again`,
          reconnectBoundMs,
          25,
        );
      }
      reconnectMs.push(Date.now() - at);
    }
    const doneDuringFaults = (await stepCounts(db.pool, runIds)).byState.completed ?? 0;
    await eventually(() => allRunsTerminal(db.pool, runIds), 'every run to end', 120_000, 200);
    const counts = await stepCounts(db.pool, runIds);
    reportFigures('terminate-backend', {
      rounds,
      sessions_terminated: terminated,
      steps: counts.steps,
      running_at_termination: inFlightAtTermination,
      completed_during_faults: doneDuringFaults,
      lost: counts.steps - (counts.byState.completed ?? 0),
      double: counts.doubleCompleted,
      duplicate_exec: counts.duplicateExecutions,
      reconnect_p50_ms: quantile(reconnectMs, 0.5),
      reconnect_max_ms: quantile(reconnectMs, 1),
    });

    expect(counts.byState).toEqual({ completed: runIds.length });
    expect(counts.doubleCompleted).toBe(0);
    expect(counts.completedWithoutEvent).toBe(0);
    expect(await runningSteps(db.pool)).toBe(0);
    expect(terminated).toBeGreaterThanOrEqual(rounds);
    await expectEventsFollowTable(db.pool);
  } finally {
    await scheduler.stop();
  }
});
