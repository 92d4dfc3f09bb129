import type { StoreLogger } from '../contract/store-logger.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { settleInTransaction } from './settle-in-transaction.js';

/**
 * What an operation returns when it may have left other runs to settle: its own result, and the
 * runs it wrote to the settlement outbox that the facade settles once its transaction committed
 * (by `settleAfterCommit` below: a child run it started, the parent of a run it ended). Nothing is lost
 * when that settling fails: the markers stay in the outbox for the `settle-pending` scanner.
 */
export interface WithFollowUps<T> {
  readonly value: T;
  readonly followUps: readonly string[];
}

/** A {@link WithFollowUps} with follow-ups gathered from several places. */
export function withFollowUps<T>(value: T, ...followUps: Iterable<string>[]): WithFollowUps<T> {
  const all = new Set<string>();
  for (const ids of followUps) for (const id of ids) all.add(id);
  return { value, followUps: [...all] };
}

/** Most runs one chain settles; the rest stay in the outbox for `settle-pending`. */
const ChainLimit = 100;

/**
 * The one entry point of settlement after an operation committed (the moment inside its
 * transaction is `settleInTransaction`): settles the runs the operation wrote to the settlement
 * outbox, one after another, each in its own transaction, which also clears its marker, and then
 * the runs those settlements wrote there in turn (a child run just started, the parent of a run
 * that ended), so a child's end reaches its parent at once. It never throws: the operation it
 * follows has committed. A run whose settling fails is logged with its id and the error, and
 * keeps its marker, so the scheduler's `settle-pending` scanner settles it.
 */
export async function settleAfterCommit(
  db: SqlRunner,
  runIds: Iterable<string>,
  logger: StoreLogger,
): Promise<void> {
  const queue = [...new Set(runIds)];
  for (let i = 0; i < queue.length && i < ChainLimit; i++) {
    const runId = queue[i]!;
    try {
      const next = await db.transaction((tx) => settleInTransaction(tx, runId));
      for (const id of next) if (!queue.includes(id)) queue.push(id);
    } catch (err) {
      logger.warn(
        { runId, err },
        'settling the run failed after the operation committed; it stays in the settlement outbox for the settle-pending scanner',
      );
    }
  }
}
