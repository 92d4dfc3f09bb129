import { RunState, StepState } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { getLeafOutputs } from '../tables/steps/get-leaf-outputs.js';
import { getNodeOutput } from '../tables/steps/get-node-output.js';

/** What a child run gives its parent's child node: an output, or why it gives none. */
export type ChildResult =
  { readonly ok: true; readonly output: unknown } | { readonly ok: false; readonly error: string };

/** What the child node asks of its child run. */
export interface ChildResultRequest {
  readonly childRunId: string;
  readonly childState: RunState;
  /** The error the child run recorded when it failed. */
  readonly childError: string | null;
  /** The child node's `result` option: the child node whose output it takes. */
  readonly resultNode: string | undefined;
}

/**
 * The result a terminal child run gives its parent's child node. A completed child gives the
 * output of its `result` node, which must have completed; with no `result` named it gives what
 * `client.result` returns for it, the outputs of its completed leaf nodes by node name, of which
 * there must be at least one (decision 81). A failed or cancelled child gives no result. Undefined
 * while the child run is still running or paused.
 */
export async function childResult(
  db: SqlRunner,
  request: ChildResultRequest,
): Promise<ChildResult | undefined> {
  const { childRunId, childState, resultNode } = request;
  switch (childState) {
    case RunState.Running:
    case RunState.Paused:
      return undefined;
    case RunState.Failed:
      return {
        ok: false,
        error: `child run ${childRunId} failed${request.childError ? `: ${request.childError}` : ''}`,
      };
    case RunState.Cancelled:
      return { ok: false, error: `child run ${childRunId} was cancelled` };
    case RunState.Completed:
      break;
  }
  if (resultNode !== undefined) {
    const step = await getNodeOutput(db, { runId: childRunId, node: resultNode });
    if (!step) {
      return {
        ok: false,
        error: `child run ${childRunId} completed but has no result node ${resultNode}`,
      };
    }
    if (step.state !== StepState.Completed) {
      return {
        ok: false,
        error: `child run ${childRunId} completed while its result node ${resultNode} did not complete (${step.state})`,
      };
    }
    return { ok: true, output: step.output };
  }
  const leaves = await getLeafOutputs(db, { runId: childRunId });
  if (leaves.length === 0) {
    return {
      ok: false,
      error: `child run ${childRunId} completed with no result: none of its leaf nodes completed`,
    };
  }
  return { ok: true, output: Object.fromEntries(leaves.map((l) => [l.node, l.output])) };
}
