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
import { moveRun, openMove } from '../tables/runs/move-run.js';
import { pauseSteps } from '../tables/steps/pause-steps.js';
import { assertRunMove } from '../settlement/run-refusal.js';
import { changeParams } from '../tables/transitions/change-params.js';

const pauseStep = stepChange(StepTrigger.Pause, StepState.Paused);
const pauseRunChange = runChange(RunTrigger.Pause, RunState.Paused);

/**
 * Pauses a running run in one transaction that takes its lock first: available, waiting and
 * waiting-child steps to `paused`, the run to `paused` with `paused_at` stamped. A step running
 * at the pause goes on; whatever it does next lands in `paused` (or ends the run). A claim that
 * commits after the pause finds no available step.
 *
 * @throws NotFoundError for an unknown run; AlreadyPausedError (reason `same-state`) for a paused
 *   one; AlreadyTerminalError (reason `terminal`) for a terminal one; nothing changes
 */
export function pauseRun(db: SqlRunner, runId: string): Promise<{ steps: number }> {
  return db.transaction(async (tx) => {
    const run = await lockRun(tx, { runId });
    if (!run) throw new NotFoundError('run', runId);
    assertRunMove(runId, run.state, pauseRunChange.to, pauseRunChange.trigger);
    const paused = await pauseSteps(tx, {
      runId,
      ...changeParams(pauseStep),
    });
    await moveRun(
      tx,
      openMove(runId, changeParams(pauseRunChange), EventType.RunPaused, { pausing: true }),
    );
    return { steps: paused.length };
  });
}
