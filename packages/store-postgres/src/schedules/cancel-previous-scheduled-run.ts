import {
  isTerminalRun,
  isTerminalStep,
  runChange,
  RunState,
  RunTrigger,
  StepState,
  StepTrigger,
  stepChange,
} from '@cyclone/core';
import type { Executor } from '../db/executor.js';
import { cancelSteps } from '../settlement/cancel-steps.js';
import { loadRunNodes } from '../settlement/load-run-nodes.js';
import { lockRun } from '../settlement/lock-run.js';
import { setRunState } from '../settlement/set-run-state.js';

// The changes client.cancel makes, built from core's table (refused at import if illegal).
const cancelStep = stepChange(StepTrigger.Cancel, StepState.Cancelled);
const cancelRun = runChange(RunTrigger.Cancel, RunState.Cancelled);

/**
 * Cancels a schedule's previous run for overlap `cancel_previous`, as `client.cancel` would: its
 * non-terminal steps (and their item tasks) become `cancelled` by the trigger `cancel`, then the
 * run (running or paused) becomes `cancelled`, each with its event. Runs inside the transaction
 * that records the new fire, so the old run ends exactly when the new one starts. Returns whether
 * it cancelled the run (false when it had ended already).
 *
 * This is the run-cancellation path of schedules only; it is meant to share one implementation
 * with the operator's `client.cancel` once both exist.
 */
export async function cancelPreviousScheduledRun(db: Executor, runId: string): Promise<boolean> {
  const run = await lockRun(db, { runId });
  if (!run || isTerminalRun(run.state)) return false;
  const stepIds = (await loadRunNodes(db, { runId }))
    .filter((n) => !isTerminalStep(n.state))
    .map((n) => n.id);
  if (stepIds.length > 0) {
    await cancelSteps(db, {
      runId,
      stepIds,
      eventType: `step_cancelled_${cancelStep.trigger}`,
      toState: cancelStep.to,
      fromStates: cancelStep.from,
      trigger: cancelStep.trigger,
    });
  }
  const moved = await setRunState(db, {
    runId,
    toState: cancelRun.to,
    fromStates: cancelRun.from,
    trigger: cancelRun.trigger,
    terminal: true,
    errorKind: null,
    error: 'cancelled by the next fire of its schedule (overlap cancel_previous)',
    failedNode: null,
    eventType: 'run_cancelled',
  });
  return moved.length > 0;
}
