import { ChildNotRetryableError, RunState } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import type { RunNodeRow } from '../tables/steps/load-run-nodes.js';
import { lockRun } from '../tables/runs/lock-run.js';
import { childNodesOfRun } from '../tables/children/child-nodes.js';
import { childResult } from '../settlement/child-result.js';

/**
 * The child runs a retry must start again: those of the retried or reopened child nodes that
 * failed or were cancelled. A child run that completed is reused as it is, so its result must be
 * one the node can take; a child run still running or paused is simply waited for again. Locks
 * each child run (parent before child) and writes nothing, so a refusal leaves the retry with
 * nothing to undo.
 *
 * @throws ChildNotRetryableError when a child run completed without a result for its node
 */
export async function childRunsToRestart(
  db: SqlRunner,
  runId: string,
  nodes: readonly RunNodeRow[],
): Promise<string[]> {
  const linked = nodes.filter((n) => n.child_run_id !== null);
  if (linked.length === 0) return [];
  const parent = await childNodesOfRun(db, runId);
  const restart: string[] = [];
  for (const node of linked) {
    const childRunId = node.child_run_id!;
    const child = await lockRun(db, { runId: childRunId });
    if (!child) continue;
    if (child.state === RunState.Failed || child.state === RunState.Cancelled) {
      restart.push(childRunId);
    } else if (child.state === RunState.Completed) {
      const result = await childResult(db, {
        childRunId,
        childState: child.state,
        childError: null,
        resultNode: parent?.nodes.get(node.node)?.result,
      });
      if (!result?.ok) {
        throw new ChildNotRetryableError(runId, node.node, childRunId, {
          reason: 'terminal',
          cause: new Error(result?.error ?? `child run ${childRunId} gave no result`),
        });
      }
    }
  }
  return restart;
}
