import { RunState, RunTrigger, runChange } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { cancelRunTree } from '../settlement/cancel-run-tree.js';

const cancelRun = runChange(RunTrigger.Cancel, RunState.Cancelled);

/**
 * Cancels a schedule's previous run for overlap `cancel_previous`, exactly as `client.cancel`
 * does (the operator's cancellation, run inside the transaction that records the new fire, so the
 * old run ends when the new one starts). Returns whether it cancelled the run (false when it had
 * ended already).
 */
export async function cancelPreviousScheduledRun(db: SqlRunner, runId: string): Promise<boolean> {
  const cancelled = await cancelRunTree(db, runId, { refuseTerminal: false });
  return cancelRun.from.includes(cancelled.from);
}
