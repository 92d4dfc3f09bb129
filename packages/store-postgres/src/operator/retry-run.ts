import {
  AlreadyPausedError,
  AlreadyTerminalError,
  NodeType,
  NoExhaustedNodeError,
  NotFoundError,
  RetryAdditionalAttempts,
  RunState,
  RunTrigger,
  StepState,
  StepTrigger,
  proposeRun,
  proposeStep,
  runChange,
  stepChange,
  EventType,
} from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import {
  changeParams,
  singleFrom,
  singleFromChangeParams,
} from '../tables/transitions/change-params.js';
import { loadRunNodes, type RunNodeRow } from '../tables/steps/load-run-nodes.js';
import { lockRun } from '../tables/runs/lock-run.js';
import { findCancelCauses } from '../tables/events/find-cancel-causes.js';
import { moveRun, openMove } from '../tables/runs/move-run.js';
import { planRetry, type RetryPlan } from './plan-retry.js';
import { promoteReady, promoteTask } from '../tables/steps/promote-ready.js';
import { recountOpenSteps } from '../tables/runs/recount-open-steps.js';
import { reopenSteps } from '../tables/steps/reopen-steps.js';
import { retrySteps } from '../tables/steps/retry-steps.js';
import { ChildNodeTypes, retryChild } from '../tables/children/child-changes.js';
import { childRunsToRestart } from './child-runs-to-restart.js';
import { retryChildNodes } from '../tables/children/retry-child-nodes.js';
import { settleInTransaction } from '../settlement/settle-in-transaction.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import { findItemNodes } from '../tables/items/find-item-nodes.js';
import { retryFanOut } from '../tables/items/fan-out-changes.js';
import { reopenFanOuts } from './reopen-fan-outs.js';

const retryTask = stepChange(StepTrigger.OperatorRetry, StepState.Available);
const reopen = stepChange(StepTrigger.OperatorRetryReopen, StepState.Pending, NodeType.Task);
const reopenAny = stepChange(StepTrigger.OperatorRetryReopen, StepState.Pending);
const retryRunChange = runChange(RunTrigger.OperatorRetry, RunState.Running);
/** The node types whose discarded steps go straight back to `available`: those a worker runs. */
const RetriedTypes: readonly string[] = [NodeType.Task, NodeType.Item];
/**
 * Every node type a retry takes: worker steps, child nodes (`discarded -> pending`, reusing the
 * child run) and fan-out nodes (`discarded -> pending`, with their item tasks).
 */
const RetriableTypes: readonly string[] = [...RetriedTypes, NodeType.Child, NodeType.FanOut];

/**
 * What a retry names: one node (by name or step id), every discard of the run, or step ids. A
 * `restart` is a child run starting again because its parent's child node was retried: every
 * discard retried and every cancelled step reopened, from `failed` or `cancelled`.
 */
export type RetryTarget =
  | { readonly node: string }
  | { readonly all: true }
  | { readonly stepIds: readonly string[] }
  | { readonly restart: true };

/** What {@link retryRun} did. */
export interface RetriedRun {
  /**
   * Steps moved out of `discarded`: to `available`, or `pending` for a child or fan-out node (with
   * the item tasks a retried fan-out node reopened).
   */
  readonly retried: number;
  /** Steps moved `cancelled -> pending`. */
  readonly reopened: number;
  /** The run's state before the retry. */
  readonly from: RunState;
  /** Other runs the retry wrote to the settlement outbox, to settle once it committed. */
  readonly followUps: readonly string[];
}

/**
 * Retries discarded steps of a run in one transaction that takes the run's lock first: each to
 * `available` (attempts kept, max attempts raised, reclaims reset, errors cleared) or, for a child
 * node, to `pending` and on to `waiting_child` (its child run reused: started again when it failed
 * or was cancelled), the steps a fail-fast or branch cancellation cancelled because of them back
 * to `pending` (and on when their dependencies are complete), and a failed run back to `running`
 * with its open steps recounted.
 *
 * @throws NotFoundError for an unknown run or node; NoExhaustedNodeError (with the rule's reason)
 *   for a node that is not discarded, a run with no discard, or a cancelled run;
 *   AlreadyTerminalError for a completed run; AlreadyPausedError for a paused run (resume first);
 *   ChildNotRetryableError for a child node whose child run completed without a result for it.
 *   Nothing changes when it throws.
 */
export async function retryRun(
  db: SqlRunner,
  runId: string,
  target: RetryTarget,
): Promise<WithFollowUps<{ retried: number; reopened: number }>> {
  const done = await db.transaction((tx) => retryInTransaction(tx, runId, target));
  return withFollowUps({ retried: done.retried, reopened: done.reopened }, done.followUps);
}

/** {@link retryRun} inside the caller's transaction (a parent's retry restarting its child run). */
async function retryInTransaction(
  tx: SqlRunner,
  runId: string,
  target: RetryTarget,
): Promise<RetriedRun> {
  const run = await lockRun(tx, { runId });
  if (!run) throw new NotFoundError('run', runId);
  const nodes = await loadRunNodes(tx, { runId });
  const byName = new Map(nodes.map((n) => [n.node, n]));
  const ids = (names: readonly string[]) => names.map((n) => byName.get(n)!.id);

  let plan: RetryPlan;
  if ('restart' in target) {
    plan = {
      retry: nodes
        .filter((n) => n.state === StepState.Exhausted && RetriableTypes.includes(n.node_type))
        .map((n) => n.node),
      reopen: nodes.filter((n) => n.state === StepState.Cancelled).map((n) => n.node),
    };
  } else {
    // A retry may name an item task: it retries the item's fan-out node, with its items.
    const named = 'node' in target ? [target.node] : 'stepIds' in target ? target.stepIds : [];
    const itemNodes = await findItemNodes(tx, runId, named);
    const requested = requestedNodes(runId, nodes, target, itemNodes);
    assertRunRetryable(runId, run.state, 'node' in target ? target.node : undefined);
    const causes = new Map<string, string | null>();
    const nameOf = new Map(nodes.map((n) => [n.id, n.node]));
    for (const c of await findCancelCauses(tx, { runId, cancelledState: StepState.Cancelled })) {
      const name = nameOf.get(c.step_id);
      if (name !== undefined) causes.set(name, c.trigger);
    }
    plan = planRetry(nodes, causes, requested);
  }

  // A retried or reopened child node reuses its child run: refused before anything is written
  // when that run completed without a result for it, started again when it failed or was
  // cancelled (child before the parent's own writes, under the parent's lock).
  const childNodes = [...plan.retry, ...plan.reopen]
    .map((name) => byName.get(name)!)
    .filter((n) => n.node_type === NodeType.Child);
  for (const childRunId of await childRunsToRestart(tx, runId, childNodes)) {
    await retryInTransaction(tx, childRunId, { restart: true });
  }

  const retried = await retrySteps(tx, {
    runId,
    stepIds: ids(plan.retry),
    ...singleFromChangeParams(retryTask),
    nodeTypes: RetriedTypes,
    additionalAttempts: RetryAdditionalAttempts,
  });
  const retriedChildren = await retryChildNodes(tx, {
    runId,
    stepIds: ids(plan.retry),
    ...singleFromChangeParams(retryChild),
    nodeTypes: ChildNodeTypes,
    completedState: StepState.Completed,
  });
  const reopened = await reopenSteps(tx, {
    runId,
    stepIds: ids(plan.reopen),
    ...changeParams(reopenAny),
    // Every reopened row moves from `cancelled`: the task row's single from-state names it.
    eventFrom: singleFrom(reopen),
    completedState: StepState.Completed,
  });
  const isFanOut = (name: string) => byName.get(name)!.node_type === NodeType.FanOut;
  const fanOuts = {
    retried: ids(plan.retry.filter(isFanOut)),
    reopened: ids(plan.reopen.filter(isFanOut)),
  };
  const items = await reopenFanOuts(tx, { runId, ...fanOuts });
  if (run.state === RunState.Failed || run.state === RunState.Cancelled) {
    await moveRun(
      tx,
      openMove(runId, changeParams(retryRunChange), EventType.RunRetried, { clearError: true }),
    );
  } else {
    await recountOpenSteps(tx, { runId });
  }
  await promoteReady(tx, {
    runId,
    ...singleFromChangeParams(promoteTask),
    taskType: NodeType.Task,
  });
  // Reopened child, fan-out and wait nodes move on in the settlement, as they would have without
  // the discard: a child node to waiting_child with its (restarted) child run, a fan-out node
  // expanded or its items released into the free places of its limit.
  const followUps = await settleInTransaction(tx, runId);
  return {
    retried: retried.length + retriedChildren.length + fanOuts.retried.length + items,
    reopened: reopened.length,
    from: run.state,
    followUps,
  };
}

/** The discarded node names the target names, or the operator error for a target that names none. */
function requestedNodes(
  runId: string,
  nodes: readonly RunNodeRow[],
  target: RetryTarget,
  itemNodes: ReadonlyMap<string, string>,
): Set<string> {
  if ('node' in target) {
    const name = itemNodes.get(target.node) ?? target.node;
    const node = nodes.find((n) => n.node === name || n.id === name);
    if (!node) throw new NotFoundError('node', target.node);
    assertStepRetryable(runId, node, target.node);
    return new Set([node.node]);
  }
  const wanted = 'stepIds' in target ? new Set(target.stepIds) : undefined;
  const wantedNodes = new Set(itemNodes.values());
  const chosen = nodes.filter(
    (n) =>
      n.state === StepState.Exhausted &&
      RetriableTypes.includes(n.node_type) &&
      (wanted === undefined || wanted.has(n.id) || wantedNodes.has(n.node)),
  );
  if (chosen.length === 0) {
    throw new NoExhaustedNodeError(runId, undefined, { reason: 'invalid-entry' });
  }
  return new Set(chosen.map((n) => n.node));
}

/**
 * A node is retried by the table's `discarded -> available` row for its type (`discarded ->
 * pending` for a child or fan-out node), or refused.
 */
function assertStepRetryable(runId: string, node: RunNodeRow, named: string): void {
  const change =
    node.node_type === NodeType.Child
      ? retryChild
      : node.node_type === NodeType.FanOut
        ? retryFanOut
        : retryTask;
  const proposal = proposeStep(node.state, change.to, change.trigger, node.node_type as NodeType);
  if (proposal.accepted) return;
  throw new NoExhaustedNodeError(runId, named, {
    reason: proposal.reason,
    cause: new Error(proposal.message),
  });
}

/**
 * A failed run is reopened by the table's `failed -> running` row; a running run (its discard
 * was contained) keeps running. A cancelled run has no exhausted node to retry; a completed one is
 * terminal; a paused one must be resumed first, so nothing becomes claimable in a pause.
 */
function assertRunRetryable(runId: string, state: RunState, node: string | undefined): void {
  if (state === RunState.Running) return;
  // The table's `cancelled -> running` row is a child run's restart only (decision 82).
  if (state === RunState.Cancelled) {
    throw new NoExhaustedNodeError(runId, node, {
      reason: 'terminal',
      cause: new Error(`run ${runId} was cancelled by an operator: nothing of it is retried`),
    });
  }
  const proposal = proposeRun(state, retryRunChange.to, retryRunChange.trigger);
  if (proposal.accepted) return;
  const options = { reason: proposal.reason, cause: new Error(proposal.message) };
  if (state === RunState.Paused) throw new AlreadyPausedError(runId, options);
  throw new AlreadyTerminalError(runId, state, options);
}
