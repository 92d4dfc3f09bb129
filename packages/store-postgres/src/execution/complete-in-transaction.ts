import type pg from 'pg';
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
import { recordCompletions } from './complete.js';

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
