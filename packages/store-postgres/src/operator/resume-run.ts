import {
  NodeType,
  NotFoundError,
  RunState,
  RunTrigger,
  STEP_TRANSITIONS,
  StepState,
  StepTrigger,
  runChange,
  stepChange,
  type NodeType as NodeTypeValue,
  EventType,
} from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { changeParams, singleFromChangeParams } from '../tables/transitions/change-params.js';
import { lockRun } from '../tables/runs/lock-run.js';
import { settleInTransaction } from '../settlement/settle-in-transaction.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import { moveRun, openMove } from '../tables/runs/move-run.js';
import { promoteReady, promoteTask } from '../tables/steps/promote-ready.js';
import { assertRunMove } from '../settlement/run-refusal.js';
import { resumeSteps } from '../tables/steps/resume-steps.js';

const resumeRunChange = runChange(RunTrigger.Resume, RunState.Running);
const toAvailable = stepChange(StepTrigger.Resume, StepState.Available);
const toSignal = stepChange(StepTrigger.Resume, StepState.WaitingSignal);
const toTimer = stepChange(StepTrigger.Resume, StepState.WaitingTimer);
const toChild = stepChange(StepTrigger.Resume, StepState.WaitingChild);

/** The node types the table's resume row into `to` applies to. */
function resumedTypes(to: StepState): readonly NodeTypeValue[] {
  const row = STEP_TRANSITIONS.find((r) => r.trigger === StepTrigger.Resume && r.to === to);
  return row?.nodeTypes ?? [];
}

/**
 * Resumes a paused run in one transaction that takes its lock first: the run to `running`
 * (`paused_at` cleared), each paused step back to the state it was paused from with its waits and
 * timers moved forward by the pause's length, then the pending tasks the pause held back (their
 * dependencies completed during it) promoted.
 *
 * @throws NotFoundError for an unknown run; NotPausedError for a run that is not paused (reason
 *   `terminal` for a terminal run, `invalid-entry` for a running one); nothing changes
 */
export function resumeRun(db: SqlRunner, runId: string): Promise<WithFollowUps<{ steps: number }>> {
  return db.transaction(async (tx) => {
    const run = await lockRun(tx, { runId });
    if (!run) throw new NotFoundError('run', runId);
    assertRunMove(runId, run.state, resumeRunChange.to, resumeRunChange.trigger);
    const moved = await moveRun(
      tx,
      openMove(runId, changeParams(resumeRunChange), EventType.RunResumed),
    );
    const resumed = await resumeSteps(tx, {
      runId,
      pausedMs: Math.max(0, Number(moved?.paused_ms ?? 0)),
      fromStates: toAvailable.from,
      trigger: toAvailable.trigger,
      toAvailable: toAvailable.to,
      toSignal: toSignal.to,
      signalTypes: resumedTypes(StepState.WaitingSignal),
      toTimer: toTimer.to,
      timerTypes: resumedTypes(StepState.WaitingTimer),
      toChild: toChild.to,
      childTypes: resumedTypes(StepState.WaitingChild),
    });
    const promoted = await promoteReady(tx, {
      runId,
      ...singleFromChangeParams(promoteTask),
      taskType: NodeType.Task,
    });
    // Wait nodes whose dependencies completed during the pause, and signals buffered while the
    // waits were paused (decision 51), move in the settlement, as they would have unpaused.
    // What it moved may have completed the run: a child run's parent is then a follow-up.
    const followUps = await settleInTransaction(tx, runId);
    return withFollowUps({ steps: resumed.length + promoted.length }, followUps);
  });
}
