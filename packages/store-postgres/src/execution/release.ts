import { StepTrigger, EventType } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { requeue } from './requeue.js';

/** Gives a running step back without charging an attempt (graceful shutdown); false when fenced out. */
export function release(db: SqlRunner, stepId: string, claimToken: string): Promise<boolean> {
  return requeue(db, stepId, claimToken, {
    trigger: StepTrigger.Release,
    delayMs: 0,
    chargeAttempt: false,
    error: null,
    errorKind: null,
    panicStack: null,
    eventType: EventType.StepReleased,
    detail: null,
  });
}
