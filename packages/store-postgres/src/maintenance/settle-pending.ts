import type { StoreLogger } from '../contract/store-logger.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { settleAfterCommit } from '../settlement/settle-after-commit.js';
import { settleInTransaction } from '../settlement/settle-in-transaction.js';
import { findPendingSettlements } from '../tables/outbox/find-pending-settlements.js';

/**
 * Re-drives the settlement outbox: settles up to `limit` runs whose steps ended while their
 * settlement did not happen (the completing process crashed or lost its connection in between).
 * Each run is settled in its own transaction; settling a run twice is harmless (the second finds
 * nothing to do), so it may race with the completing worker. A run that fails to settle here
 * fails the pass, which the scanner reports and runs again. Returns how many runs it settled.
 */
export async function settlePending(
  db: SqlRunner,
  logger: StoreLogger,
  limit = 100,
): Promise<number> {
  const pending = await findPendingSettlements(db, { limit });
  for (const { run_id: runId } of pending) {
    const followUps = await db.transaction((tx) => settleInTransaction(tx, runId));
    // What a settlement writes to the outbox (a child run started, a parent whose child ended)
    // is settled at once, in its own transaction, rather than at the next pass.
    await settleAfterCommit(db, followUps, logger);
  }
  return pending.length;
}
