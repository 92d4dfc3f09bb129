import { RunState, StepState, StepTrigger, stepChange } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { prefixed, singleFromChangeParams } from '../tables/transitions/change-params.js';
import { rescheduleStep } from '../tables/steps/reschedule-step.js';

/** The triggers that give a running step back to the queue. */
export type RequeueTrigger =
  | typeof StepTrigger.RetryableError
  | typeof StepTrigger.Snooze
  | typeof StepTrigger.TransientError
  | typeof StepTrigger.Release;

/** Each trigger's two changes: into `available`, or into `paused` when the run is paused. */
const changes: Record<RequeueTrigger, ReturnType<typeof both>> = {
  [StepTrigger.RetryableError]: both(StepTrigger.RetryableError),
  [StepTrigger.Snooze]: both(StepTrigger.Snooze),
  [StepTrigger.TransientError]: both(StepTrigger.TransientError),
  [StepTrigger.Release]: both(StepTrigger.Release),
};

function both(trigger: RequeueTrigger) {
  return {
    ready: singleFromChangeParams(stepChange(trigger, StepState.Available)),
    paused: prefixed('paused', singleFromChangeParams(stepChange(trigger, StepState.Paused))),
  };
}

/** What a requeue records. */
export interface Requeue {
  readonly trigger: RequeueTrigger;
  readonly delayMs: number;
  readonly chargeAttempt: boolean;
  readonly error: string | null;
  readonly errorKind: string | null;
  readonly panicStack: string | null;
  readonly eventType: string;
  readonly detail: Record<string, unknown> | null;
}

/** Gives a running step back to the queue (or to `paused`); false when fenced out. */
export async function requeue(
  db: SqlRunner,
  stepId: string,
  claimToken: string,
  p: Requeue,
): Promise<boolean> {
  const { ready, paused } = changes[p.trigger];
  const rows = await db.retrying((exec) =>
    rescheduleStep(exec, {
      stepId,
      claimToken,
      delayMs: Math.max(0, Math.round(p.delayMs)),
      chargeAttempt: p.chargeAttempt,
      error: p.error,
      errorKind: p.errorKind,
      panicStack: p.panicStack,
      eventType: p.eventType,
      detail: p.detail === null ? null : JSON.stringify(p.detail),
      ...ready,
      ...paused,
      pausedRunState: RunState.Paused,
    }),
  );
  return rows.length > 0;
}
