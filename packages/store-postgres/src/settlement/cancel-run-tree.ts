import {
  NotFoundError,
  RunState,
  RunTrigger,
  StepState,
  StepTrigger,
  runChange,
  stepChange,
  EventType,
} from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { lockRun } from '../tables/runs/lock-run.js';
import { endRunSteps } from '../tables/steps/end-run-steps.js';
import { moveRun, terminalMove } from '../tables/runs/move-run.js';
import { assertRunMove } from './run-refusal.js';
import { changeParams } from '../tables/transitions/change-params.js';

const cancelStep = changeParams(stepChange(StepTrigger.Cancel, StepState.Cancelled));
const cancelRunChange = runChange(RunTrigger.Cancel, RunState.Cancelled);

/** What {@link cancelRunTree} did. */
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
 * Cancels a running or paused run inside the caller's transaction, taking its lock first: every
 * non-terminal step to `cancelled` (completed steps stay), the active child run of a waiting child
 * node too (recursively, parent before child), and the run to `cancelled`. Workers holding a
 * running step are told at once. With `refuseTerminal` a terminal run is refused; without it
 * (cancelling the child runs of nodes that ended, a schedule's `cancel_previous`) a run that has
 * ended already is quietly left as it is.
 *
 * @throws NotFoundError for an unknown run; AlreadyTerminalError (reason `terminal`) for a
 *   terminal one when `refuseTerminal`, and nothing changes
 */
export function cancelRunTree(
  tx: SqlRunner,
  runId: string,
  options: { readonly refuseTerminal: boolean },
): Promise<CancelledRun> {
  return cancelInTransaction(tx, runId, options.refuseTerminal);
}

async function cancelInTransaction(
  tx: SqlRunner,
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
    ...cancelStep,
    eventType: EventType.StepCancelledCancel,
    errorKind: null,
    error: null,
    runningState: StepState.Running,
  });
  const moved = await moveRun(
    tx,
    terminalMove(runId, changeParams(cancelRunChange), EventType.RunCancelled),
  );
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
