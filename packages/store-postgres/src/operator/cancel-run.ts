import type { SqlRunner } from '../db/sql-runner.js';
import { cancelRunTree } from '../settlement/cancel-run-tree.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';

/**
 * Cancels a running or paused run (see `cancelRunTree`) in one transaction. A cancelled child run
 * discards its parent's child node: the parent is a follow-up, settled once this committed.
 *
 * @throws NotFoundError for an unknown run; AlreadyTerminalError (reason `terminal`) for a
 *   terminal one, and nothing changes
 */
export async function cancelRun(db: SqlRunner, runId: string): Promise<WithFollowUps<void>> {
  const cancelled = await db.transaction((tx) =>
    cancelRunTree(tx, runId, { refuseTerminal: true }),
  );
  return withFollowUps(undefined, cancelled.parentRunId === null ? [] : [cancelled.parentRunId]);
}
