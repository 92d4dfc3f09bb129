/**
 * Scenario 21: worker processes whose handlers write inside `ctx.transaction` are SIGKILLed at
 * random moments, again and again: before `fn`, inside it, at its commit, after it. A second worker
 * and the scheduler run meanwhile. Every step ends completed exactly once, with exactly one
 * `fault_txn_effects` row, however many times `fn` ran: the rows of killed attempts never commit.
 */
import { afterEach, expect, it } from 'vitest';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { allRunsTerminal, stepCounts, transactionalEffects } from '../support/invariants.js';
import { delay, eventually, randomBetween } from '../support/poll.js';
import type { FixtureProcess } from '../support/processes.js';
import { FixtureSet } from '../support/processes.js';
import { startScheduler } from '../support/scheduler.js';
import { trials } from '../support/trials.js';
import { fixtureEvent, spawnWorker, startWorker, workerReady } from '../support/workers.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

/** Where each step of a killed worker stood when it died, from what the worker reported. */
function phasesAtKill(victim: FixtureProcess): { beforeFn: number; inFn: number; after: number } {
  const last = new Map<string, string>();
  for (const line of victim.lines) {
    if (typeof line.stepId === 'string') last.set(line.stepId, String(line.fixture));
  }
  const phases = { beforeFn: 0, inFn: 0, after: 0 };
  for (const phase of last.values()) {
    if (phase === 'started') phases.beforeFn++;
    else if (phase === 'in-fn') phases.inFn++;
    else phases.after++;
  }
  return phases;
}

it('commits the rows written inside ctx.transaction exactly once per step across SIGKILLs', async () => {
  const kills = trials(30, 30);
  const stepsPerKill = 6;
  const scheduler = await startScheduler(db.url, { interval: '200ms' });
  try {
    await startWorker(fixtures, db.url, { id: 'steady', lease: '1s', concurrency: 2 });
    const runIds: string[] = [];
    const phases = { beforeFn: 0, inFn: 0, after: 0 };
    let next = spawnWorker(fixtures, db.url, { id: 'victim-0', lease: '1s', concurrency: 6 });
    for (let k = 0; k < kills; k++) {
      const victim = next;
      await workerReady(victim);
      const jobs = await db.client.enqueueMany(
        'fault.txn',
        Array.from({ length: stepsPerKill }, (_, i) => ({ kill: k, i })),
        { maxAttempts: 1_000 },
      );
      runIds.push(...jobs.map((j) => j.runId));
      await victim.line(fixtureEvent('started'), `${victim.name} to start a step`);
      next = spawnWorker(fixtures, db.url, {
        id: `victim-${k + 1}`,
        lease: '1s',
        concurrency: 6,
      });
      // Anywhere from before the first fn to after the last commit of this round's steps.
      await delay(randomBetween(0, 200));
      await victim.kill();
      const at = phasesAtKill(victim);
      phases.beforeFn += at.beforeFn;
      phases.inFn += at.inFn;
      phases.after += at.after;
    }
    await next.kill();

    await eventually(() => allRunsTerminal(db.pool, runIds), 'every run to end', 120_000, 200);
    const counts = await stepCounts(db.pool, runIds);
    const effects = await transactionalEffects(db.pool, runIds);
    reportFigures('sigkill-transaction', {
      kills,
      steps: counts.steps,
      killed_before_fn: phases.beforeFn,
      killed_in_fn: phases.inFn,
      killed_after_commit: phases.after,
      reclaims: counts.reclaims,
      completed_with_row: effects.completedWithRow,
      completed_without_row: effects.completedWithoutRow,
      row_without_completion: effects.rowWithoutCompletion,
      multiple_rows: effects.multipleRows,
      double: counts.doubleCompleted,
    });

    expect(counts.byState).toEqual({ completed: kills * stepsPerKill });
    expect(counts.doubleCompleted).toBe(0);
    expect(effects).toEqual({
      completedWithRow: kills * stepsPerKill,
      completedWithoutRow: 0,
      rowWithoutCompletion: 0,
      multipleRows: 0,
    });
    // The kills did land inside fn: otherwise the scenario proves nothing about it.
    expect(phases.inFn).toBeGreaterThan(0);
    await expectEventsFollowTable(db.pool);
  } finally {
    await scheduler.stop();
  }
});
