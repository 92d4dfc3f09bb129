import {
  decideRunOutcome,
  ErrorKind,
  EventType,
  isTerminalRun,
  isTerminalStep,
  NodeType,
  RunState,
  RunTrigger,
  runChange,
  StepState,
  StepTrigger,
  stepChange,
} from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { changeParams } from '../tables/transitions/change-params.js';
import { runCompleted } from '../tables/events/run-row-events.js';
import { clearSettlement } from '../tables/outbox/clear-settlement.js';
import { lockSettlingRun } from '../tables/runs/lock-settling-run.js';
import { moveRun, terminalMove } from '../tables/runs/move-run.js';
import { cancelSteps } from '../tables/steps/cancel-steps.js';
import { loadRunNodes, type RunNodeRow } from '../tables/steps/load-run-nodes.js';
import { SignalWaitTypes, TimerWaitTypes } from '../tables/waits/wait-changes.js';
import { advanceCached } from './advance-cached.js';
import { advanceChildren } from './advance-children.js';
import { advanceFanOuts } from './advance-fan-outs.js';
import { advanceWaits } from './advance-waits.js';
import { cancelChildRuns } from './cancel-child-runs.js';
import { SettlingRun } from './settling-run.js';

const WaitNodeTypes = [...SignalWaitTypes, ...TimerWaitTypes];

// Every write below is one of these changes; the table refuses an illegal one at import.
const cancellations = [
  {
    change: changeParams(stepChange(StepTrigger.CancelBranch, StepState.Cancelled)),
    eventType: EventType.StepCancelledCancelBranch,
  },
  {
    change: changeParams(stepChange(StepTrigger.FailFast, StepState.Cancelled)),
    eventType: EventType.StepCancelledFailFast,
  },
];
const runCompletes = changeParams(runCompleted);
const runFails = changeParams(runChange(RunTrigger.DiscardUncontained, RunState.Failed));

/**
 * Brings a run in line with the run-state rule of core after one of its steps ended in a way the
 * fast paths do not settle (a discard, above all, a dependency of a wait, fan-out or child node
 * completed, an item task ended): promotes ready wait nodes into their wait and lets them consume
 * buffered signals (`advanceWaits`), completes ready cached tasks from the result cache or
 * promotes them (`advanceCached`), expands ready fan-out nodes and moves expanded ones on
 * (`advanceFanOuts`), starts, completes and discards child nodes (`advanceChildren`), cancels what
 * fail-fast or branch cancellation cancels (with the runs of cancelled child nodes) and moves the
 * run to `completed` or `failed`, then clears the run's settlement marker: the marker goes only
 * with the settlement it stands for. The one entry point of settlement inside an operation's
 * transaction (the moment after commit is `settleAfterCommit`). It takes the run's lock first,
 * once, before the marker, like the completion statement (which updates the run before it
 * inserts the marker): nothing else changes the run's state while it holds it.
 *
 * @returns the other runs it wrote to the settlement outbox (a child run it started, the parent
 *   of this run when it ended), for the caller to settle once this transaction has committed
 */
export async function settleInTransaction(tx: SqlRunner, runId: string): Promise<string[]> {
  const followUps = await advanceRun(tx, runId);
  await clearSettlement(tx, { runId });
  return followUps;
}

/** {@link settleInTransaction} but for the marker, which it leaves to its caller. */
async function advanceRun(db: SqlRunner, runId: string): Promise<string[]> {
  const locked = await lockSettlingRun(db, { runId, taskType: NodeType.Task });
  if (!locked || isTerminalRun(locked.state)) return [];
  const run = new SettlingRun(
    runId,
    locked.state,
    new Set(locked.node_types),
    locked.has_cached_tasks,
  );
  // Each kind of node is looked at only in a run that has one (a look is a statement or more).
  const waits = run.hasNodeOf(WaitNodeTypes);
  const fanOuts = run.hasNodeOf([NodeType.FanOut]);
  const children = run.hasNodeOf([NodeType.Child]);
  // A wait, fan-out or child node that ended may make another node ready: repeat until nothing
  // moves (each pass that goes round ended at least one node, so the loop ends).
  for (;;) {
    if (waits) await advanceWaits(db, run);
    if (run.ended) return [...run.followUps];
    const cacheHit = run.hasCachedTasks && (await advanceCached(db, run));
    if (run.ended) return [...run.followUps];
    const fanOutEnded = fanOuts && (await advanceFanOuts(db, run));
    if (run.ended) return [...run.followUps];
    const childMoved = children && (await advanceChildren(db, run));
    if (run.ended) return [...run.followUps];
    if (!cacheHit && !fanOutEnded && !childMoved) break;
  }
  await applyRunOutcome(db, run);
  return [...run.followUps];
}

/** Applies core's run-state rule: the cancellations it asks for, then the run's new state. */
async function applyRunOutcome(db: SqlRunner, run: SettlingRun): Promise<void> {
  const nodes = await loadRunNodes(db, { runId: run.id });
  const outcome = decideRunOutcome({
    runState: run.state,
    nodes: nodes.map((n) => ({
      name: n.node,
      state: n.state,
      dependsOn: n.depends_on,
      onDepFailure: n.on_dep_failure,
    })),
  });

  const byName = new Map<string, RunNodeRow>(nodes.map((n) => [n.node, n]));
  for (const { change, eventType } of cancellations) {
    const stepIds = outcome.cancel
      .filter((c) => c.trigger === change.trigger)
      .map((c) => byName.get(c.node))
      .filter((n): n is RunNodeRow => n !== undefined && !isTerminalStep(n.state))
      .map((n) => n.id);
    if (stepIds.length === 0) continue;
    const cancelled = await cancelSteps(db, { runId: run.id, stepIds, eventType, ...change });
    // A cancelled child node's run is cancelled with it, in this transaction (parent first).
    await cancelChildRuns(db, cancelled);
  }

  if (outcome.state === run.state) return;
  const culprit = outcome.failedBy === undefined ? undefined : byName.get(outcome.failedBy);
  const moved =
    outcome.state === RunState.Completed
      ? await moveRun(db, terminalMove(run.id, runCompletes, null))
      : outcome.state === RunState.Failed
        ? await moveRun(
            db,
            terminalMove(run.id, runFails, EventType.RunFailed, {
              errorKind: culprit?.error_kind ?? ErrorKind.Permanent,
              error: culprit?.error ?? null,
              failedNode: outcome.failedBy ?? null,
            }),
          )
        : undefined;
  // The end of a child run wrote its parent to the outbox: settle it next.
  if (moved?.parent_run_id) run.followUps.add(moved.parent_run_id);
}
