/**
 * Scenario 3: a worker frozen (SIGSTOP) past its lease while its handler runs. The step is
 * reclaimed and completed by another worker; when the frozen worker resumes (SIGCONT) and its
 * handler returns, its late completion is refused (by the claim fence in the database, or by the
 * worker itself when its heartbeat learnt first that the lease was lost). Exactly one completion,
 * the second worker's.
 */
import { afterEach, expect, it } from 'vitest';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { useFaultDatabase } from '../support/database.js';
import { quantile, reportFigures } from '../support/figures.js';
import { stepCounts } from '../support/invariants.js';
import { logLines } from '../support/log-lines.js';
import { eventually } from '../support/poll.js';
import { FixtureSet } from '../support/processes.js';
import { startScheduler } from '../support/scheduler.js';
import { trials } from '../support/trials.js';
import { fixtureEvent, startWorker } from '../support/workers.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

const fencedInDatabase = 'stale completion dropped: the claim moved on';
const droppedByWorker = 'step no longer held by this worker; its result is dropped';

it("refuses a frozen worker's late completion after its lease was reclaimed", async () => {
  const count = trials(8, 2);
  const scheduler = await startScheduler(db.url, { interval: '200ms' });
  try {
    // Its handlers ignore the abort, so the late result really comes back.
    const frozen = await startWorker(fixtures, db.url, {
      id: 'frozen',
      lease: '1s',
      ignoreAbort: true,
    });
    const steady = await startWorker(fixtures, db.url, { id: 'steady', lease: '1s' });
    const runIds: string[] = [];
    let fencedByDatabase = 0;
    let fencedByWorker = 0;
    const frozenForMs: number[] = [];
    const seen = new Set<string>();
    for (let t = 0; t < count; t++) {
      // Only the frozen worker may claim the new step.
      steady.child.kill('SIGSTOP');
      const { runId } = await db.client.enqueue('fault.hold', { holdBy: 'frozen' });
      runIds.push(runId);
      const effect = await frozen.line(
        (l) => l.fixture === 'effect' && !seen.has(String(l.stepId)),
        'the frozen worker to start the step',
      );
      const stepId = String(effect.stepId);
      seen.add(stepId);
      frozen.child.kill('SIGSTOP');
      const stoppedAt = Date.now();
      steady.child.kill('SIGCONT');
      await eventually(async () => {
        const [row] = await db.query<{ state: string }>(
          'SELECT state FROM cyclone_steps WHERE id = $1',
          [stepId],
        );
        return row?.state === 'completed';
      }, 'the steady worker to complete the reclaimed step');
      frozen.send(`finish ${stepId}`);
      frozen.child.kill('SIGCONT');
      frozenForMs.push(Date.now() - stoppedAt);
      await frozen.line(fixtureEvent('returning', stepId), 'the frozen handler to return');
      const verdict = await eventually(
        () =>
          logLines(frozen).find(
            (l) => l.stepId === stepId && (l.msg === fencedInDatabase || l.msg === droppedByWorker),
          ),
        "the frozen worker's late result to be refused",
      );
      if (verdict.msg === fencedInDatabase) fencedByDatabase++;
      else fencedByWorker++;
    }

    const counts = await stepCounts(db.pool, runIds);
    const outputs = await db.query<{ worker: string; reclaims: number }>(
      `SELECT output->>'worker' AS worker, reclaims FROM cyclone_steps WHERE run_id = ANY($1::uuid[])`,
      [runIds],
    );
    reportFigures('frozen-past-lease', {
      trials: count,
      fenced_in_database: fencedByDatabase,
      dropped_by_worker: fencedByWorker,
      double: counts.doubleCompleted,
      frozen_p50_ms: quantile(frozenForMs, 0.5),
    });

    expect(counts.byState).toEqual({ completed: count });
    expect(counts.doubleCompleted).toBe(0);
    expect(outputs.every((o) => o.worker === 'steady' && o.reclaims === 1)).toBe(true);
    expect(fencedByDatabase + fencedByWorker).toBe(count);
    await expectEventsFollowTable(db.pool);
  } finally {
    await scheduler.stop();
  }
});
