import type { StoreLogger } from '../contract/store-logger.js';
import type { Executor } from '../db/executor.js';
import { settleRunAndClearMarker } from './settle-run.js';

/** Most runs one chain settles; the rest stay in the outbox for `settle-pending`. */
const ChainLimit = 100;

/**
 * Settles a run of the settlement outbox in its own transaction, which also clears its marker.
 *
 * @returns the runs that settlement wrote to the outbox in turn
 */
export function settleMarkedRun(db: Executor, runId: string): Promise<string[]> {
  return db.transaction((tx) => settleRunAndClearMarker(tx, runId));
}

/**
 * The one after-commit step of the store: settles the runs an operation wrote to the settlement
 * outbox, one after another, each in its own transaction, and then the runs those settlements
 * wrote there in turn (a child run just started, the parent of a run that ended), so a child's
 * end reaches its parent at once. It never throws: the operation it follows has committed. A run
 * whose settling fails is logged with its id and the error, and keeps its marker, so the
 * scheduler's `settle-pending` scanner settles it.
 */
export async function settleFollowUps(
  db: Executor,
  runIds: Iterable<string>,
  logger: StoreLogger,
): Promise<void> {
  const queue = [...new Set(runIds)];
  for (let i = 0; i < queue.length && i < ChainLimit; i++) {
    const runId = queue[i]!;
    try {
      for (const next of await settleMarkedRun(db, runId)) {
        if (!queue.includes(next)) queue.push(next);
      }
    } catch (err) {
      logger.warn(
        { runId, err },
        'settling the run failed after the operation committed; it stays in the settlement outbox for the settle-pending scanner',
      );
    }
  }
}
