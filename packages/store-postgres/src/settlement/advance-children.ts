import {
  ErrorKind,
  EventType,
  OutputBytes,
  RunState,
  StepState,
  type StepChange,
} from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { singleFromChangeParams } from '../tables/transitions/change-params.js';
import {
  ChildNodeTypes,
  completeChild,
  failChild,
  promoteChild,
} from '../tables/children/child-changes.js';
import { childNodesOfRun } from '../tables/children/child-nodes.js';
import { discardChildNode } from '../tables/children/discard-child-node.js';
import { loadWaitingChildren } from '../tables/children/load-waiting-children.js';
import { promoteWaits } from '../tables/waits/promote-waits.js';
import { childResult } from './child-result.js';
import { completeNodes } from './complete-nodes.js';
import type { SettlingRun } from './settling-run.js';
import { startChildRun } from './start-child-run.js';

const completion = { change: completeChild, timedOut: false, eventType: EventType.ChildCompleted };
const promotion = singleFromChangeParams(promoteChild);

/**
 * Discards a waiting child node with error kind `permanent` (see `discard-child-node`); returns
 * the child run it had started, if any.
 */
export async function discardChild(
  db: SqlRunner,
  stepId: string,
  change: StepChange,
  error: string,
): Promise<{ childRunId: string | null } | undefined> {
  const row = await discardChildNode(db, {
    stepId,
    ...singleFromChangeParams(change),
    errorKind: ErrorKind.Permanent,
    error,
  });
  return row && { childRunId: row.child_run_id };
}

/**
 * Brings a run's child nodes up to date, under its lock, as part of settling it: promotes the
 * child nodes whose dependencies completed (`pending -> waiting_child`, the maxWait counted from
 * now), starts the child run of each waiting node that has none, and ends each waiting node whose
 * child run ended: completed with the child's result, or discarded as `permanent` when the child
 * failed, was cancelled or gave no result, or the child workflow is unknown or did not build.
 * A paused run promotes nothing, and its child nodes are paused: a child that ends meanwhile
 * stays recorded in its own run's state, and the settlement after `resume` applies it. A child
 * run it starts is a follow-up of the settlement (it may have child nodes of its own to start).
 *
 * @returns whether a child node completed or was discarded, which may make other nodes ready
 */
export async function advanceChildren(db: SqlRunner, run: SettlingRun): Promise<boolean> {
  const runId = run.id;
  await promoteWaits(db, {
    runId,
    nodeTypes: ChildNodeTypes,
    timer: false,
    ...promotion,
    promotingRunState: RunState.Running,
  });
  if (run.state !== RunState.Running) return false;
  const waiting = await loadWaitingChildren(db, { runId, waitingState: StepState.WaitingChild });
  if (waiting.length === 0) return false;
  const parent = await childNodesOfRun(db, runId);
  let moved = false;
  for (const step of waiting) {
    if (run.ended) break;
    const node = parent?.nodes.get(step.node);
    if (!parent || !node) {
      const error = `node ${step.node} is not a child node of the run's definition`;
      await discardChild(db, step.id, failChild, error);
      moved = true;
      continue;
    }
    if (step.child_run_id === null) {
      const started = await startChildRun(db, {
        parentRunId: runId,
        stepId: step.id,
        node,
        inputJson: parent.inputJson,
      });
      if (started.ok) {
        run.followUps.add(started.childRunId);
      } else {
        await discardChild(db, step.id, failChild, started.error);
        moved = true;
      }
      continue;
    }
    if (step.child_state === null) continue;
    const result = await childResult(db, {
      childRunId: step.child_run_id,
      childState: step.child_state,
      childError: step.child_error,
      resultNode: node.result,
    });
    if (result === undefined) continue;
    moved = true;
    const outputJson = result.ok ? JSON.stringify(result.output ?? null) : undefined;
    if (outputJson !== undefined && Buffer.byteLength(outputJson) <= OutputBytes) {
      run.absorb(await completeNodes(db, completion, [{ stepId: step.id, outputJson }]));
    } else {
      const error = result.ok
        ? `the result of child run ${step.child_run_id} is larger than ${OutputBytes} bytes`
        : result.error;
      await discardChild(db, step.id, failChild, error);
    }
  }
  return moved;
}
