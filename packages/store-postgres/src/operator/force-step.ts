import {
  AlreadyTerminalError,
  ErrorKind,
  EventType,
  NodeType,
  NotFoundError,
  RunState,
  StepState,
  StepTrigger,
  TransitionRefusedError,
  isTerminalRun,
  isTerminalStep,
  nodesDownstream,
  proposeNodeMove,
  stepChange,
  type NodeMoveRequest,
} from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import type { ForcedMove } from '../contract/operator-store.js';
import { lockRun } from '../tables/runs/lock-run.js';
import { cancelItems } from '../tables/items/cancel-items.js';
import { cancelItem } from '../tables/items/fan-out-changes.js';
import { cancelSteps } from '../tables/steps/cancel-steps.js';
import { findNodeStep } from '../tables/steps/find-node-step.js';
import { forceStepRow } from '../tables/steps/force-step.js';
import { loadRunNodes } from '../tables/steps/load-run-nodes.js';
import { promoteReady, promoteTask } from '../tables/steps/promote-ready.js';
import { changeParams, singleFromChangeParams } from '../tables/transitions/change-params.js';
import { cancelChildRuns } from '../settlement/cancel-child-runs.js';
import { settleInTransaction } from '../settlement/settle-in-transaction.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';

const cancelBranch = changeParams(stepChange(StepTrigger.CancelBranch, StepState.Cancelled));
const itemCancellation = changeParams(cancelItem);
const promotion = singleFromChangeParams(promoteTask);

/** Each target's event type: a forced end reads like the end it stands for. */
const EventTypes: Readonly<Record<string, string>> = {
  [StepState.Completed]: EventType.StepCompleted,
  [StepState.Exhausted]: EventType.StepDiscarded,
  [StepState.Cancelled]: EventType.StepCancelledForce,
};

/**
 * An operator's move of one node (`client.forceStep`), in one transaction under the run's lock:
 * core's `proposeNodeMove` decides on the facts read there (refusing writes nothing), the node's
 * step moves by its `force` row, and the run then goes on as if the node had got there by itself:
 * - a fan-out node's open item tasks are cancelled, a child node's child run is cancelled;
 * - `completed`: the output is stored and counted off the dependents, which are promoted (not in
 *   a paused run: resume promotes them);
 * - `cancelled`: every non-terminal node downstream is cancelled by branch cancellation;
 * - `discarded` (error kind `permanent`): the run's settlement applies fail-fast or `CancelBranch`;
 * and the run is settled (waits, fan-outs, children, its own end).
 *
 * @throws NotFoundError for an unknown run or node; AlreadyTerminalError for a terminal run;
 *   TransitionRefusedError with the rule's reason (`duplicate`, `terminal`, `invalid-entry`, ...)
 */
export function forceStep(
  db: SqlRunner,
  runId: string,
  node: string,
  move: NodeMoveRequest,
): Promise<WithFollowUps<ForcedMove>> {
  return db.transaction(async (tx) => {
    const run = await lockRun(tx, { runId });
    if (!run) throw new NotFoundError('run', runId);
    const step = await findNodeStep(tx, { runId, node, moveTrigger: StepTrigger.Force });
    if (!step) throw new NotFoundError('node', node);
    const from = step.state;
    const proposal = proposeNodeMove({
      runState: run.state,
      from,
      to: move.to,
      nodeType: step.node_type as NodeType,
      force: move.force,
      lastMove:
        step.last_move_to === null || step.last_move_at === null
          ? null
          : { to: step.last_move_to, at: step.last_move_at },
      now: step.now,
    });
    if (!proposal.accepted) {
      const options = { reason: proposal.reason, cause: new Error(proposal.message) };
      if (proposal.reason === 'terminal' && isTerminalRun(run.state)) {
        throw new AlreadyTerminalError(runId, run.state, options);
      }
      throw new TransitionRefusedError(runId, node, from, move.to, proposal.reason, options);
    }
    const discard = move.to === StepState.Exhausted;
    const moved = await forceStepRow(tx, {
      runId,
      stepId: step.id,
      fromState: from,
      ...changeParams(stepChange(StepTrigger.Force, move.to, step.node_type as NodeType)),
      eventType: EventTypes[move.to]!,
      outputJson: move.outputJson,
      errorKind: discard ? ErrorKind.Permanent : null,
      error: discard ? `discarded by an operator: ${move.reason}` : null,
      detail: JSON.stringify({ forced: move.force, reason: move.reason }),
      completedState: StepState.Completed,
      pendingState: StepState.Pending,
      runningState: StepState.Running,
    });
    // The step row is locked and the run too: nothing moved it since it was read.
    if (moved.length === 0) throw new Error(`node ${node} of run ${runId} moved under its lock`);

    if (step.node_type === NodeType.FanOut) {
      await cancelItems(tx, {
        nodeId: step.id,
        ...itemCancellation,
        runningState: StepState.Running,
      });
    }
    if (move.to === StepState.Cancelled) {
      const nodes = await loadRunNodes(tx, { runId });
      const branch = nodesDownstream(
        nodes.map((n) => ({ name: n.node, dependsOn: n.depends_on })),
        node,
      );
      const stepIds = nodes
        .filter((n) => branch.has(n.node) && !isTerminalStep(n.state))
        .map((n) => n.id);
      if (stepIds.length > 0) {
        const cancelled = await cancelSteps(tx, {
          runId,
          stepIds,
          eventType: EventType.StepCancelledCancelBranch,
          ...cancelBranch,
        });
        await cancelChildRuns(tx, cancelled);
      }
    }
    // Nothing waits for a child run's result any more, whatever the node became.
    await cancelChildRuns(tx, moved);
    if (move.to === StepState.Completed && run.state === RunState.Running) {
      await promoteReady(tx, { runId, ...promotion, taskType: NodeType.Task });
    }
    const followUps = await settleInTransaction(tx, runId);
    const value: ForcedMove = {
      runId,
      node,
      stepId: step.id,
      from,
      to: move.to,
      forced: move.force,
    };
    return withFollowUps(value, followUps);
  });
}
