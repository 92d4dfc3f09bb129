import {
  ErrorKind,
  RunState,
  RunTrigger,
  StepState,
  StepTrigger,
  runChange,
  stepChange,
  EventType,
} from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { endRunSteps } from '../tables/steps/end-run-steps.js';
import { moveRun, terminalMove } from '../tables/runs/move-run.js';
import { changeParams } from '../tables/transitions/change-params.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import { lockRun } from '../tables/runs/lock-run.js';
import { findExpiredRuns } from '../tables/runs/find-expired-runs.js';
import { cancelChildRuns } from '../settlement/cancel-child-runs.js';

const discardForDeadline = changeParams(stepChange(StepTrigger.RunDeadline, StepState.Exhausted));
const failForDeadline = changeParams(runChange(RunTrigger.RunDeadline, RunState.Failed));

/** The error a step and its run record when the run's deadline elapsed. */
export const RunDeadlineError = 'run deadline exceeded';

/**
 * The run-deadline sweep: each running run past its deadline, in its own transaction that takes
 * the run's lock first, has every non-terminal step that is not paused discarded with error kind
 * `deadline` (running handlers are told to abort at once; completed steps stay completed; the runs
 * of waiting child nodes are cancelled) and fails once by `run_deadline`; a failed child run's
 * parent is a follow-up. A run that a writer moved meanwhile (paused, ended) is skipped. Bounded
 * by `limit` runs a pass; running it again does nothing more. `value` is how many runs it failed.
 */
export async function expireRunDeadlines(
  db: SqlRunner,
  limit = 100,
): Promise<WithFollowUps<number>> {
  let failed = 0;
  const followUps: string[] = [];
  for (const { id } of await findExpiredRuns(db, { runningState: RunState.Running, limit })) {
    const moved = await db.transaction(async (tx) => {
      const run = await lockRun(tx, { runId: id });
      if (!run || !failForDeadline.fromStates.includes(run.state)) return undefined;
      const ended = await endRunSteps(tx, {
        runId: id,
        ...discardForDeadline,
        eventType: EventType.StepDiscarded,
        errorKind: ErrorKind.Deadline,
        error: RunDeadlineError,
        runningState: StepState.Running,
      });
      // A discarded child node's run is cancelled with it: the parent stopped waiting for it.
      await cancelChildRuns(tx, ended);
      return moveRun(
        tx,
        terminalMove(id, failForDeadline, EventType.RunFailed, {
          errorKind: ErrorKind.Deadline,
          error: RunDeadlineError,
          failedNode: null,
        }),
      );
    });
    if (moved === undefined) continue;
    failed++;
    if (moved.parent_run_id !== null) followUps.push(moved.parent_run_id);
  }
  return withFollowUps(failed, followUps);
}
