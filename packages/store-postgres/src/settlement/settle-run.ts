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
import { cancelSteps } from './cancel-steps.js';
import { loadRunNodes } from './load-run-nodes.js';
import { lockRun } from './lock-run.js';
import { setRunState } from './set-run-state.js';
import { advanceWaits } from '../waits/advance-waits.js';
import { advanceFanOuts } from '../fan-out/advance-fan-outs.js';

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
 * fast paths do not settle (a discard, above all, a dependency of a wait or fan-out node
 * completed, an item task ended): promotes ready wait nodes into their wait and lets them consume
 * buffered signals, expands ready fan-out nodes and moves expanded ones on (`advanceFanOuts`),
 * cancels what fail-fast or branch cancellation cancels and moves the run to `completed` or
 * `failed`. Must run inside a transaction; it takes the run's lock first.
 */
export async function settleRun(db: Executor, runId: string): Promise<void> {
  const locked = await lockRun(db, { runId });
  if (!locked || isTerminalRun(locked.state)) return;
  let run = locked;
  for (;;) {
    await advanceWaits(db, runId);
    // A wait that completed may have completed the run: read its state again (the lock is held).
    const current = await lockRun(db, { runId });
    if (!current || isTerminalRun(current.state)) return;
    run = current;
    // A fan-out node that ended may make a wait or another fan-out ready: go round again. Each
    // round that continues ended at least one node, so the loop ends.
    const { ended } = await advanceFanOuts(db, runId, run.state);
    if (!ended) break;
  }
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
      await cancelSteps(db, {
        runId,
        stepIds,
        eventType: `step_cancelled_${change.trigger}`,
        toState: change.to,
        fromStates: change.from,
        trigger: change.trigger,
      });
    }
  }

  if (outcome.state === run.state) return;
  if (outcome.state === 'completed') {
    await setRunState(db, {
      runId,
      ...runChangeParams(runCompletes),
      errorKind: null,
      error: null,
      failedNode: null,
      eventType: 'run_completed',
    });
  } else if (outcome.state === 'failed') {
    const culprit = outcome.failedBy === undefined ? undefined : idOf.get(outcome.failedBy);
    await setRunState(db, {
      runId,
      ...runChangeParams(runFails),
      errorKind: culprit?.error_kind ?? ErrorKind.Permanent,
      error: culprit?.error ?? null,
      failedNode: outcome.failedBy ?? null,
      eventType: 'run_failed',
    });
  }
}
