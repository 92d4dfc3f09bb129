import {
  NotFoundError,
  RunState,
  RunTrigger,
  StepState,
  StepTrigger,
  runChange,
  stepChange,
} from '@cyclone/core';
import type { Executor } from '../db/executor.js';
import { lockRun } from '../tables/runs/lock-run.js';
import { endRunSteps } from '../tables/steps/end-run-steps.js';
import { moveRun } from '../tables/runs/move-run.js';
import { assertRunMove } from './run-refusal.js';
import { TerminalStepStates } from '../tables/steps/terminal-step-states.js';

const cancelStep = stepChange(StepTrigger.Cancel, StepState.Cancelled);
const cancelRunChange = runChange(RunTrigger.Cancel, RunState.Cancelled);

/** What {@link cancelRun} did. */
export interface CancelledRun {
  /** The run's state before the cancel. */
  readonly from: RunState;
  /** The steps it cancelled. */
  readonly steps: number;
  /** Child runs cancelled with their waiting child nodes (recursively). */
  readonly childRuns: readonly string[];
  /** A cancelled child run's parent, written to the settlement outbox by the cancel. */
  readonly parentRunId: string | null;
}

/**
 * Cancels a running or paused run: every non-terminal step to `cancelled` (completed steps stay),
 * the active child run of a waiting child node too, and the run to `cancelled`, all in one
 * transaction that takes the run's lock first. Workers holding a running step are told at once.
 *
 * @throws NotFoundError for an unknown run; AlreadyTerminalError (reason `terminal`) for a
 *   terminal one, and nothing changes
 */
export function cancelRun(db: Executor, runId: string): Promise<CancelledRun> {
  return db.transaction((tx) => cancelInTransaction(tx, runId, true));
}

/**
 * Cancels a run inside the caller's transaction, as {@link cancelRun} does, but quietly skips a
 * run that has ended already (a schedule's `cancel_previous`). Returns what it did.
 */
export function cancelRunIfActive(tx: Executor, runId: string): Promise<CancelledRun> {
  return cancelInTransaction(tx, runId, false);
}

async function cancelInTransaction(
  tx: Executor,
  runId: string,
  refuseTerminal: boolean,
): Promise<CancelledRun> {
  const run = await lockRun(tx, { runId });
  if (!run) throw new NotFoundError('run', runId);
  if (!refuseTerminal && !cancelRunChange.from.includes(run.state)) {
    return { from: run.state, steps: 0, childRuns: [], parentRunId: null };
  }
  assertRunMove(runId, run.state, cancelRunChange.to, cancelRunChange.trigger);
  const ended = await endRunSteps(tx, {
    runId,
    toState: cancelStep.to,
    fromStates: cancelStep.from,
    trigger: cancelStep.trigger,
    eventType: `step_cancelled_${cancelStep.trigger}`,
    errorKind: null,
    error: null,
    runningState: StepState.Running,
  });
  const [moved] = await moveRun(tx, {
    runId,
    toState: cancelRunChange.to,
    fromStates: cancelRunChange.from,
    trigger: cancelRunChange.trigger,
    eventType: 'run_cancelled',
    terminal: true,
    pausing: false,
    clearError: false,
    errorKind: null,
    error: null,
    terminalStepStates: TerminalStepStates,
  });
  // A child node's run is cancelled with it: the parent no longer waits for its result. Parent
  // before child is the lock order of every writer that touches both.
  const childRuns: string[] = [];
  for (const step of ended) {
    if (step.child_run_id === null) continue;
    const child = await cancelInTransaction(tx, step.child_run_id, false);
    if (cancelRunChange.from.includes(child.from)) childRuns.push(step.child_run_id);
    childRuns.push(...child.childRuns);
  }
  return {
    from: run.state,
    steps: ended.length,
    childRuns: [...new Set(childRuns)],
    parentRunId: moved?.parent_run_id ?? null,
  };
}
