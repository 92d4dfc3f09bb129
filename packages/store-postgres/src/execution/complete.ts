import type pg from 'pg';
import { EventType, StepState, StepTrigger, stepChange } from '@cyclone/core';
import type {
  Completion,
  CompletionWithin,
  HeldStep,
  TransactionalCompletion,
  TransactionalWork,
} from '../contract/worker-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { withTransaction } from '../db/transaction.js';
import { WorkFailure } from '../db/work-failure.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import {
  acceptedCompletions,
  completeSteps,
  completionParams,
  completionsInput,
} from '../tables/steps/complete-steps.js';

/** A handler's success: `running -> completed` by `complete`, the attempt counted, no event row. */
const handlerSuccess = completionParams({
  change: stepChange(StepTrigger.Complete, StepState.Completed),
  eventType: EventType.StepCompleted,
  countAttempt: true,
  timedOut: false,
  cached: false,
  reportEnded: false,
});

/**
 * Records handler successes in one statement, which also marks the runs that need settling in
 * the settlement outbox: they are its follow-ups, settled once it committed (a settlement that
 * fails is not an error of the completion, which stands: the marker stays, and the scheduler's
 * `settle-pending` scanner settles the run). `value` holds the ids whose completion was accepted;
 * the others were fenced out (their claim had moved on) and nothing of them was written. Run
 * again when Postgres aborts it for a deadlock: on the pool it is a transaction of its own.
 */
export function completeAll(
  db: SqlRunner,
  completions: readonly Completion[],
): Promise<WithFollowUps<Set<string>>> {
  if (completions.length === 0) return Promise.resolve(withFollowUps(new Set<string>()));
  return db.retrying((exec) => recordCompletions(exec, completions));
}

/**
 * The completion statement itself, once, on whatever connection `db` runs: the pool, or a
 * transaction that also carries the handler's own writes (`completeInTransaction`), where a
 * deadlock aborts the whole transaction and a statement alone cannot be run again.
 */
async function recordCompletions(
  db: SqlRunner,
  completions: readonly Completion[],
): Promise<WithFollowUps<Set<string>>> {
  const rows = await completeSteps(db, { ...handlerSuccess, ...completionsInput(completions) });
  const marked = new Set<string>();
  for (const row of rows) if (row.what === 'settle' && row.id) marked.add(row.id);
  return withFollowUps(acceptedCompletions(completions, rows), marked);
}

/** Thrown inside the transaction to roll it back when the fence refused the completion. */
class Refused extends Error {}

/**
 * Records one completion on a connection inside a transaction that also carries the handler's own
 * writes: the same statement as every completion (`recordCompletions`), once. It is not run again
 * on a deadlock, which aborts the whole transaction; the transaction's owner decides.
 */
export async function completeWithin(
  db: SqlRunner,
  completion: Completion,
): Promise<CompletionWithin> {
  const { value, followUps } = await recordCompletions(db, [completion]);
  return { accepted: value.has(completion.stepId), followUps };
}

/**
 * A transactional completion: `BEGIN` on a client of `pool`, the handler's `work` on that client,
 * the step's completion with the output `work` gave (fenced by the claim), `COMMIT`. The fence
 * refusing rolls everything back. What `work` throws rolls back too and leaves as a
 * {@link WorkFailure}, so that the facade hands it on unchanged instead of typing it as a store
 * error. One attempt only: a conflict is not retried, because running `work` again is not the
 * store's call.
 */
export async function completeInTransaction<T>(
  db: SqlRunner,
  pool: pg.Pool,
  held: HeldStep,
  work: TransactionalWork<T>,
): Promise<WithFollowUps<TransactionalCompletion<T>>> {
  try {
    return await withTransaction(
      pool,
      async (client) => {
        let output;
        try {
          output = await work(client);
        } catch (error) {
          throw new WorkFailure(error);
        }
        const { stepId, claimToken } = held;
        const { outputJson, value } = output;
        const recorded = await completeWithin(db.on(client), { stepId, claimToken, outputJson });
        if (!recorded.accepted) throw new Refused();
        return withFollowUps({ completed: true, value }, recorded.followUps);
      },
      1,
    );
  } catch (error) {
    if (error instanceof Refused) return withFollowUps({ completed: false });
    throw error;
  }
}
