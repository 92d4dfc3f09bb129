import type { SqlRunner } from '../db/sql-runner.js';
import { cancelRunTree } from './cancel-run-tree.js';

/**
 * Cancels the active child runs of child nodes that were just cancelled or discarded (fail-fast,
 * branch cancellation, a maxWait lapse, the parent's run deadline), recursively with their own
 * children, in the caller's transaction: nothing waits for their results any more. The parent is
 * locked already; parent before child is the lock order of every writer that touches both. A
 * child run that has ended is left as it is.
 *
 * @returns the child runs it cancelled
 */
export async function cancelChildRuns(
  db: SqlRunner,
  ended: readonly { readonly child_run_id: string | null }[],
): Promise<string[]> {
  const cancelled: string[] = [];
  for (const { child_run_id: childRunId } of ended) {
    if (childRunId === null) continue;
    const done = await cancelRunTree(db, childRunId, { refuseTerminal: false });
    if (done.steps > 0 || done.childRuns.length > 0) cancelled.push(childRunId);
    cancelled.push(...done.childRuns);
  }
  return cancelled;
}
