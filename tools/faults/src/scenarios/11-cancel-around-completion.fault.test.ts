/**
 * Scenario 11: `client.cancel` at random offsets around a running step's completion (or, in every
 * other trial, its retryable failure), a thousand trials. Exactly one of completed / cancelled per
 * step, the run's state agreeing; once cancelled, a step is never retried, claimed or completed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AlreadyTerminalError } from '@cyclone/core';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { connectStore, type StoreConnection } from '@cyclone/store-postgres';
import { urlNamed, useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { delay, randomBetween } from '../support/poll.js';
import { trials } from '../support/trials.js';

const db = useFaultDatabase();
let worker: StoreConnection;
beforeAll(() => {
  worker = connectStore({
    connectionString: urlNamed(db.url, 'fault-cancel-worker'),
    maxConnections: 4,
  });
});
afterAll(() => worker?.close());

/** Trials raced at once (each its own run). */
const parallel = 40;

it('ends each step either completed or cancelled, never both, and never retries after a cancel', async () => {
  const count = trials(1_000, 20);
  const tally = { completed: 0, cancelled: 0, cancel_refused: 0, fail_fenced: 0, retried: 0 };
  const runIds: string[] = [];
  for (let base = 0; base < count; base += parallel) {
    const batch = Math.min(parallel, count - base);
    const jobs = await db.client.enqueueMany(
      'fault.cancel',
      Array.from({ length: batch }, (_, i) => ({ t: base + i })),
      { maxAttempts: 5 },
    );
    runIds.push(...jobs.map((j) => j.runId));
    const claimed = await worker.store.claim({
      kinds: ['fault.cancel'],
      limit: batch,
      workerId: 'canceller',
      leaseMs: 60_000,
    });
    expect(claimed).toHaveLength(batch);
    await Promise.all(
      claimed.map(async (step, i) => {
        const failing = (base + i) % 2 === 1;
        const outcome = delay(randomBetween(0, 4)).then(async () => {
          if (!failing) {
            const done = await worker.store.complete([
              { stepId: step.id, claimToken: step.claimToken, outputJson: '{}' },
            ]);
            return done.has(step.id) ? 'completed' : 'fenced';
          }
          return worker.store.fail({
            stepId: step.id,
            claimToken: step.claimToken,
            errorKind: 'retryable',
            error: 'boom',
            panicStack: null,
            attempts: step.attempts,
            maxAttempts: step.maxAttempts,
            retryDelayMs: 0,
          });
        });
        const cancel = delay(randomBetween(0, 4)).then(() =>
          db.client.cancel(step.runId).then(
            () => 'cancelled',
            (error: unknown) => {
              if (error instanceof AlreadyTerminalError) return 'refused';
              throw error;
            },
          ),
        );
        const [recorded, cancelled] = await Promise.all([outcome, cancel]);
        if (cancelled === 'refused') tally.cancel_refused++;
        if (recorded === 'fenced') tally.fail_fenced++;
        if (recorded === 'retried') tally.retried++;
      }),
    );
  }

  const steps = await db.query<{ state: string; n: number }>(
    `SELECT s.state || '/' || r.state AS state, count(*)::int AS n FROM cyclone_steps s
     JOIN cyclone_runs r ON r.id = s.run_id WHERE s.run_id = ANY($1::uuid[]) GROUP BY 1`,
    [runIds],
  );
  const byState = Object.fromEntries(steps.map((s) => [s.state, s.n]));
  // A retried step (its failure won) that was then cancelled is cancelled: fine. A completed step
  // must have a completed run; a cancelled step, a cancelled run.
  const [{ after }] = (await db.query<{ after: number }>(
    `SELECT count(*)::int AS after FROM cyclone_history e
     JOIN (SELECT step_id, min(id) AS at FROM cyclone_history
           WHERE type LIKE 'step_cancelled%' GROUP BY step_id) c
       ON c.step_id = e.step_id AND e.id > c.at
     WHERE e.run_id = ANY($1::uuid[])`,
    [runIds],
  )) as [{ after: number }];
  const [{ both }] = (await db.query<{ both: number }>(
    `SELECT count(*)::int AS both FROM (
       SELECT step_id FROM cyclone_history WHERE run_id = ANY($1::uuid[]) AND step_id IS NOT NULL
       GROUP BY step_id
       HAVING bool_or(type = 'step_completed') AND bool_or(type LIKE 'step_cancelled%')) x`,
    [runIds],
  )) as [{ both: number }];
  tally.completed = byState['completed/completed'] ?? 0;
  tally.cancelled = byState['cancelled/cancelled'] ?? 0;
  reportFigures('cancel-vs-completion', {
    trials: count,
    ...tally,
    both,
    events_after_cancel: after,
  });

  expect(Object.keys(byState).sort()).toEqual(
    ['cancelled/cancelled', 'completed/completed'].filter((k) => byState[k]),
  );
  expect(tally.completed + tally.cancelled).toBe(count);
  expect(both).toBe(0);
  expect(after).toBe(0);
  await expectEventsFollowTable(db.pool);
});
