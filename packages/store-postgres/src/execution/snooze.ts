import { ErrorKind, StepTrigger, EventType } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { requeue } from './requeue.js';

/** Delays a running step without charging an attempt (`snooze(d)`); false when fenced out. */
export function snooze(
  db: SqlRunner,
  stepId: string,
  claimToken: string,
  delayMs: number,
): Promise<boolean> {
  return requeue(db, stepId, claimToken, {
    trigger: StepTrigger.Snooze,
    delayMs,
    chargeAttempt: false,
    error: `snoozed for ${delayMs}ms`,
    errorKind: ErrorKind.Snooze,
    panicStack: null,
    eventType: EventType.StepSnoozed,
    detail: { delayMs },
  });
}
