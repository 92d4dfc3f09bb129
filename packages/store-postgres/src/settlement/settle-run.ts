import {
  decideRunOutcome,
  ErrorKind,
  isTerminalRun,
  isTerminalStep,
  runChange,
  RunTrigger,
  StepState,
  StepTrigger,
  stepChange,
  type RunChange,
} from '@cyclone/core';
import type { Executor } from '../db/executor.js';
import { cancelSteps } from '../tables/steps/cancel-steps.js';
import { loadRunNodes } from '../tables/steps/load-run-nodes.js';
import { lockRun } from '../tables/runs/lock-run.js';
import { setRunState } from '../tables/runs/set-run-state.js';
import { advanceWaits } from './advance-waits.js';
import { advanceChildren } from './advance-children.js';
import { cancelChildRuns } from './cancel-child-runs.js';
import { advanceFanOuts } from './advance-fan-outs.js';

// Every write below is one of these changes; the table refuses an illegal one at import.
const cancelByFailFast = stepChange(StepTrigger.FailFast, StepState.Cancelled);
const cancelByBranch = stepChange(StepTrigger.CancelBranch, StepState.Cancelled);
const runCompletes = runChange(RunTrigger.Complete, 'completed');
const runFails = runChange(RunTrigger.DiscardUncontained, 'failed');

function runChangeParams(change: RunChange) {
  return { toState: change.to, fromStates: change.from, trigger: change.trigger, terminal: true };
}

/**
 * Brings a run in line with the run-state rule of core after one of its steps ended in a way the
 * fast paths do not settle (a discard, above all, a dependency of a wait, fan-out or child node
 * completed, an item task ended): promotes ready wait nodes into their wait and lets them consume
 * buffered signals, expands ready fan-out nodes and moves expanded ones on (`advanceFanOuts`),
 * starts, completes and discards child nodes (`advanceChildren`), cancels what fail-fast or
 * branch cancellation cancels (with the runs of cancelled child nodes) and moves the run to
 * `completed` or `failed`. Must run inside a transaction; it takes the run's lock first.
 *
 * @returns the other runs it wrote to the settlement outbox (a child run it started, the parent
 *   of this run when it ended), for the caller to settle once this transaction has committed
 */
export async function settleRun(db: Executor, runId: string): Promise<string[]> {
  const followUps = new Set<string>();
  const locked = await lockRun(db, { runId });
  if (!locked || isTerminalRun(locked.state)) return [];
  // A wait, fan-out or child node that ended may make another node ready: repeat until nothing
  // moves (each pass that continues ended at least one node, so the loop ends).
  for (;;) {
    await advanceWaits(db, runId);
    // A wait that completed may have completed the run: read its state again (the lock is held).
    const current = await lockRun(db, { runId });
    if (!current || isTerminalRun(current.state)) return [...followUps];
    const { ended } = await advanceFanOuts(db, runId, current.state);
    // A fan-out that completed may have completed the run: read its state again.
    const afterFanOuts = await lockRun(db, { runId });
    if (!afterFanOuts || isTerminalRun(afterFanOuts.state)) return [...followUps];
    const childrenMoved = await advanceChildren(db, runId, afterFanOuts.state, followUps);
    if (!ended && !childrenMoved) break;
  }
  const run = await lockRun(db, { runId });
  if (!run || isTerminalRun(run.state)) return [...followUps];
  const nodes = await loadRunNodes(db, { runId });
  const outcome = decideRunOutcome({
    runState: run.state,
    nodes: nodes.map((n) => ({
      name: n.node,
      state: n.state,
      dependsOn: n.depends_on,
      onDepFailure: n.on_dep_failure,
    })),
  });

  const idOf = new Map(nodes.map((n) => [n.node, n]));
  for (const change of [cancelByBranch, cancelByFailFast]) {
    const stepIds = outcome.cancel
      .filter((c) => c.trigger === change.trigger)
      .map((c) => idOf.get(c.node))
      .filter((n) => n !== undefined && !isTerminalStep(n.state))
      .map((n) => n!.id);
    if (stepIds.length > 0) {
      const cancelled = await cancelSteps(db, {
        runId,
        stepIds,
        eventType: `step_cancelled_${change.trigger}`,
        toState: change.to,
        fromStates: change.from,
        trigger: change.trigger,
      });
      // A cancelled child node's run is cancelled with it, in this transaction (parent first).
      await cancelChildRuns(db, cancelled);
    }
  }

  if (outcome.state === run.state) return [...followUps];
  let moved: { parent_run_id: string | null }[] = [];
  if (outcome.state === 'completed') {
    moved = await setRunState(db, {
      runId,
      ...runChangeParams(runCompletes),
      errorKind: null,
      error: null,
      failedNode: null,
      eventType: null,
    });
  } else if (outcome.state === 'failed') {
    const culprit = outcome.failedBy === undefined ? undefined : idOf.get(outcome.failedBy);
    moved = await setRunState(db, {
      runId,
      ...runChangeParams(runFails),
      errorKind: culprit?.error_kind ?? ErrorKind.Permanent,
      error: culprit?.error ?? null,
      failedNode: outcome.failedBy ?? null,
      eventType: 'run_failed',
    });
  }
  // The end of a child run wrote its parent to the outbox: settle it next.
  for (const row of moved) if (row.parent_run_id !== null) followUps.add(row.parent_run_id);
  return [...followUps];
}
