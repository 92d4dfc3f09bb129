/**
 * Scenario 14: SIGTERM to a worker mid-step (`handleSignals`). Claiming stops at once; in-flight
 * steps finish, or are aborted and released when the stop timeout runs out; the process then ends
 * by the signal. A second SIGTERM cuts the wait short: the steps are released and the process
 * exits with 128 + 15.
 */
import { afterEach, expect, it } from 'vitest';
import { ShutdownAbortGraceMs } from '@cyclone/worker';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { useFaultDatabase } from '../support/database.js';
import { quantile, reportFigures } from '../support/figures.js';
import { runningSteps } from '../support/invariants.js';
import { logLines } from '../support/log-lines.js';
import { delay, eventually, randomBetween } from '../support/poll.js';
import { FixtureSet } from '../support/processes.js';
import { trials } from '../support/trials.js';
import { fixtureEvent, startWorker } from '../support/workers.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

const stopTimeoutMs = 700;
/** Generous: the stop timeout, the abort grace, and the time to write outcomes and close. */
const exitBoundMs = stopTimeoutMs + ShutdownAbortGraceMs + 5_000;

it('stops claiming on SIGTERM and finishes or releases every in-flight step within the grace period', async () => {
  const rounds = trials(6, 2);
  let finished = 0;
  let released = 0;
  let forced = 0;
  const exitMs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const double = r % 2 === 1;
    const id = `term-${r}`;
    const worker = await startWorker(fixtures, db.url, {
      id,
      signals: true,
      stopTimeout: double ? '1m' : `${stopTimeoutMs}ms`,
      concurrency: 4,
      workMs: '100-1500',
      lease: '30s',
      logLevel: 'info',
    });
    const jobs = await db.client.enqueueMany(
      'fault.work',
      Array.from({ length: 4 }, (_, i) => ({ r, i })),
    );
    const runIds = jobs.map((j) => j.runId);
    await worker.line(fixtureEvent('started'), `${id} to start a step`);
    await delay(randomBetween(0, 300));
    const signalledAt = Date.now();
    worker.child.kill('SIGTERM');
    await eventually(
      () => logLines(worker).some((l) => String(l.msg).startsWith('signal received')),
      `${id} to begin stopping`,
    );
    // Enqueued once the worker stopped claiming: nobody may take it.
    const late = await db.client.enqueue('fault.work', { r, late: true });
    if (double) worker.child.kill('SIGTERM');
    const exit = await worker.exited;
    exitMs.push(Date.now() - signalledAt);

    expect(exit).toEqual(
      double ? { code: 128 + 15, signal: null } : { code: null, signal: 'SIGTERM' },
    );
    if (double) forced++;
    const steps = await db.query<{ state: string; attempts: number }>(
      'SELECT state, attempts FROM cyclone_steps WHERE run_id = ANY($1::uuid[])',
      [runIds],
    );
    for (const step of steps) {
      expect(['completed', 'available']).toContain(step.state);
      if (step.state === 'completed') finished++;
      else {
        expect(step.attempts).toBe(0);
        released++;
      }
    }
    const [lateStep] = await db.query<{ state: string; claimed_by: string | null }>(
      'SELECT state, claimed_by FROM cyclone_steps WHERE run_id = $1',
      [late.runId],
    );
    expect(lateStep).toEqual({ state: 'available', claimed_by: null });
    expect(await runningSteps(db.pool)).toBe(0);
    // Nothing may be left for the next round's worker to pick up first.
    for (const runId of [...runIds, late.runId]) {
      if ((await db.client.getRun(runId)).state === 'running') await db.client.cancel(runId);
    }
  }
  reportFigures('sigterm', {
    rounds,
    double_sigterm_rounds: forced,
    steps_finished: finished,
    steps_released: released,
    exit_p50_ms: quantile(exitMs, 0.5),
    exit_max_ms: quantile(exitMs, 1),
  });
  for (const ms of exitMs) expect(ms).toBeLessThan(exitBoundMs);
  await expectEventsFollowTable(db.pool);
});
