/**
 * Scenario 23: `client.cancel` at random offsets around a transactional completion, a thousand
 * trials: the store's `completeInTransaction` (what `ctx.transaction` runs) writes a
 * `fault_txn_effects` row, pauses, and completes the step in the same transaction, while the run is
 * cancelled. Each step ends either completed with its row or cancelled without it: never a row
 * without a completion, nor a completion without its row.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AlreadyTerminalError } from '@cyclone/core';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { connectStore, type StoreConnection } from '@cyclone/store-postgres';
import { urlNamed, useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { transactionalEffects } from '../support/invariants.js';
import { delay, randomBetween } from '../support/poll.js';
import { trials } from '../support/trials.js';

const db = useFaultDatabase();
let worker: StoreConnection;
beforeAll(() => {
  worker = connectStore({
    connectionString: urlNamed(db.url, 'fault-txn-worker'),
    maxConnections: 4,
    transactionConnections: 40,
  });
});
afterAll(() => worker?.close());

/** Trials raced at once (each its own run). */
const parallel = 40;

it('ends each step completed with its row or cancelled without it', async () => {
  const count = trials(1_000, 20);
  const tally = { committed: 0, fenced: 0, conflict: 0, cancel_refused: 0 };
  const runIds: string[] = [];
  for (let base = 0; base < count; base += parallel) {
    const batch = Math.min(parallel, count - base);
    const jobs = await db.client.enqueueMany(
      'fault.txn-race',
      Array.from({ length: batch }, (_, i) => ({ t: base + i })),
      { maxAttempts: 5 },
    );
    runIds.push(...jobs.map((j) => j.runId));
    const claimed = await worker.store.claim({
      kinds: ['fault.txn-race'],
      limit: batch,
      workerId: 'txn-racer',
      leaseMs: 60_000,
    });
    expect(claimed).toHaveLength(batch);
    await Promise.all(
      claimed.map(async (step) => {
        const completion = delay(randomBetween(0, 4)).then(() =>
          worker.store
            .completeInTransaction({ stepId: step.id, claimToken: step.claimToken }, async (tx) => {
              await tx.query(
                'INSERT INTO fault_txn_effects (step_id, attempt, worker) VALUES ($1, 1, $2)',
                [step.id, 'txn-racer'],
              );
              await delay(randomBetween(0, 3));
              return { value: null, outputJson: '{}' };
            })
            .then(
              (done) => (done.completed ? 'committed' : 'fenced'),
              // A deadlock between the completion (step, then run) and the cancel (run, then
              // steps) aborts one of them; an aborted completion leaves the step to the cancel.
              (error: unknown) => {
                if ((error as { sqlState?: unknown }).sqlState === '40P01') return 'conflict';
                throw error;
              },
            ),
        );
        const cancel = delay(randomBetween(0, 5)).then(() =>
          db.client.cancel(step.runId).then(
            () => 'cancelled',
            (error: unknown) => {
              if (error instanceof AlreadyTerminalError) return 'refused';
              throw error;
            },
          ),
        );
        const [completed, cancelled] = await Promise.all([completion, cancel]);
        tally[completed as 'committed' | 'fenced' | 'conflict']++;
        if (cancelled === 'refused') tally.cancel_refused++;
      }),
    );
  }

  const states = await db.query<{ state: string; n: number }>(
    `SELECT s.state || '/' || r.state AS state, count(*)::int AS n FROM cyclone_steps s
     JOIN cyclone_runs r ON r.id = s.run_id WHERE s.run_id = ANY($1::uuid[]) GROUP BY 1`,
    [runIds],
  );
  const byState = Object.fromEntries(states.map((s) => [s.state, s.n]));
  const effects = await transactionalEffects(db.pool, runIds);
  reportFigures('cancel-vs-transaction', {
    trials: count,
    ...tally,
    completed: byState['completed/completed'] ?? 0,
    cancelled: byState['cancelled/cancelled'] ?? 0,
    completed_with_row: effects.completedWithRow,
    completed_without_row: effects.completedWithoutRow,
    row_without_completion: effects.rowWithoutCompletion,
    multiple_rows: effects.multipleRows,
  });

  expect(Object.keys(byState).sort()).toEqual(
    ['cancelled/cancelled', 'completed/completed'].filter((k) => byState[k]),
  );
  expect((byState['completed/completed'] ?? 0) + (byState['cancelled/cancelled'] ?? 0)).toBe(count);
  expect(effects.completedWithRow).toBe(byState['completed/completed'] ?? 0);
  expect(effects.completedWithoutRow).toBe(0);
  expect(effects.rowWithoutCompletion).toBe(0);
  expect(effects.multipleRows).toBe(0);
  // Both outcomes happened: the race was a race.
  expect(tally.committed).toBeGreaterThan(0);
  expect(tally.fenced + tally.conflict).toBeGreaterThan(0);
  await expectEventsFollowTable(db.pool);
});
