/**
 * Scenario 22: a worker frozen (SIGSTOP) past its lease while its handler's `ctx.transaction` is
 * open, its row written but not committed. The step is reclaimed and completed, with its own row,
 * by another worker; when the frozen worker resumes (SIGCONT) and its `fn` returns, the
 * completion in its transaction is refused by the claim's fence, the transaction rolls back with
 * its row, and `ctx.transaction` rejects with `STEP_FENCED`. One completion and one row a step.
 */
import { afterEach, expect, it } from 'vitest';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { useFaultDatabase } from '../support/database.js';
import { quantile, reportFigures } from '../support/figures.js';
import { stepCounts, transactionalEffects } from '../support/invariants.js';
import { eventually } from '../support/poll.js';
import { FixtureSet } from '../support/processes.js';
import { startScheduler } from '../support/scheduler.js';
import { trials } from '../support/trials.js';
import { fixtureEvent, startWorker } from '../support/workers.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

it("refuses a frozen worker's stale transactional completion and rolls its row back", async () => {
  const count = trials(6, 2);
  const scheduler = await startScheduler(db.url, { interval: '200ms' });
  try {
    const frozen = await startWorker(fixtures, db.url, { id: 'frozen', lease: '1s' });
    const steady = await startWorker(fixtures, db.url, { id: 'steady', lease: '1s' });
    const runIds: string[] = [];
    const refusals: string[] = [];
    const frozenForMs: number[] = [];
    const seen = new Set<string>();
    for (let t = 0; t < count; t++) {
      // Only the frozen worker may claim the new step.
      steady.child.kill('SIGSTOP');
      const { runId } = await db.client.enqueue('fault.txn-hold', { holdBy: 'frozen' });
      runIds.push(runId);
      const effect = await frozen.line(
        (l) => l.fixture === 'effect' && !seen.has(String(l.stepId)),
        'the frozen worker to write its row inside its transaction',
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
      const refused = await frozen.line(
        fixtureEvent('transaction-refused', stepId),
        "the frozen worker's transaction to be refused",
      );
      refusals.push(String(refused.code));
    }

    const counts = await stepCounts(db.pool, runIds);
    const effects = await transactionalEffects(db.pool, runIds);
    const rows = await db.query<{ worker: string }>(
      `SELECT worker FROM fault_txn_effects e JOIN cyclone_steps s ON s.id = e.step_id
       WHERE s.run_id = ANY($1::uuid[])`,
      [runIds],
    );
    const outputs = await db.query<{ worker: string; reclaims: number }>(
      `SELECT output->>'worker' AS worker, reclaims FROM cyclone_steps WHERE run_id = ANY($1::uuid[])`,
      [runIds],
    );
    reportFigures('frozen-transaction', {
      trials: count,
      refused_step_fenced: refusals.filter((c) => c === 'STEP_FENCED').length,
      rows: rows.length,
      rows_of_frozen: rows.filter((r) => r.worker === 'frozen').length,
      double: counts.doubleCompleted,
      frozen_p50_ms: quantile(frozenForMs, 0.5),
    });

    expect(refusals).toEqual(Array.from({ length: count }, () => 'STEP_FENCED'));
    expect(counts.byState).toEqual({ completed: count });
    expect(counts.doubleCompleted).toBe(0);
    expect(effects).toEqual({
      completedWithRow: count,
      completedWithoutRow: 0,
      rowWithoutCompletion: 0,
      multipleRows: 0,
    });
    expect(rows.every((r) => r.worker === 'steady')).toBe(true);
    expect(outputs.every((o) => o.worker === 'steady' && o.reclaims === 1)).toBe(true);
    await expectEventsFollowTable(db.pool);
  } finally {
    await scheduler.stop();
  }
});
