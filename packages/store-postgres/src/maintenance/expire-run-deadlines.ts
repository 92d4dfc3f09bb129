import {
  ErrorKind,
  RunState,
  RunTrigger,
  StepState,
  StepTrigger,
  runChange,
  stepChange,
} from '@cyclone/core';
import type { Executor } from '../db/executor.js';
import { endRunSteps } from '../tables/steps/end-run-steps.js';
import { moveRun } from '../tables/runs/move-run.js';
import { TerminalStepStates } from '../tables/steps/terminal-step-states.js';
import { lockRun } from '../tables/runs/lock-run.js';
import { findExpiredRuns } from '../tables/runs/find-expired-runs.js';
import { cancelChildRuns } from '../settlement/cancel-child-runs.js';

const discardForDeadline = stepChange(StepTrigger.RunDeadline, StepState.Exhausted);
const failForDeadline = runChange(RunTrigger.RunDeadline, RunState.Failed);

/** The error a step and its run record when the run's deadline elapsed. */
export const RunDeadlineError = 'run deadline exceeded';

/**
 * The run-deadline sweep: each running run past its deadline, in its own transaction that takes
 * the run's lock first, has every non-terminal step that is not paused discarded with error kind
 * `deadline` (running handlers are told to abort at once; completed steps stay completed; the runs
 * of waiting child nodes are cancelled) and
 * fails once by `run_deadline`. A run that a writer moved meanwhile (paused, ended) is skipped.
 * Bounded by `limit` runs a pass; running it again does nothing more. Returns the runs it failed.
 */
export async function expireRunDeadlines(db: Executor, limit = 100): Promise<number> {
  let failed = 0;
  for (const { id } of await findExpiredRuns(db, { runningState: RunState.Running, limit })) {
    const done = await db.transaction(async (tx) => {
      const run = await lockRun(tx, { runId: id });
      if (!run || !failForDeadline.from.includes(run.state)) return false;
      const ended = await endRunSteps(tx, {
        runId: id,
        toState: discardForDeadline.to,
        fromStates: discardForDeadline.from,
        trigger: discardForDeadline.trigger,
        eventType: 'step_discarded',
        errorKind: ErrorKind.Deadline,
        error: RunDeadlineError,
        runningState: StepState.Running,
      });
      // A discarded child node's run is cancelled with it: the parent stopped waiting for it.
      await cancelChildRuns(tx, ended);
      const moved = await moveRun(tx, {
        runId: id,
        toState: failForDeadline.to,
        fromStates: failForDeadline.from,
        trigger: failForDeadline.trigger,
        eventType: 'run_failed',
        terminal: true,
        pausing: false,
        clearError: false,
        errorKind: ErrorKind.Deadline,
        error: RunDeadlineError,
        terminalStepStates: TerminalStepStates,
      });
      return moved.length > 0;
    });
    if (done) failed++;
  }
  return failed;
}
