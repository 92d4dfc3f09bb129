import { ErrorKind, StepState, StepTrigger, stepChange, EventType } from '@cyclone/core';
import type { Failure, FailureOutcome } from '../contract/worker-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { discardAndSettle } from '../settlement/discard-and-settle.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import { requeue } from './requeue.js';

const discardPermanent = stepChange(StepTrigger.PermanentError, StepState.Exhausted);
const discardExhausted = stepChange(StepTrigger.AttemptsExhausted, StepState.Exhausted);

/**
 * Records a handler failure: a retryable one goes back to available after its backoff, unless it
 * was the last attempt; a permanent one, or the last attempt, discards the step and settles the
 * run (fail-fast, or branch cancellation) in the same transaction.
 */
export async function fail(
  db: SqlRunner,
  failure: Failure,
): Promise<WithFollowUps<FailureOutcome>> {
  // A transient failure (the input could not be read) charges no attempt, so it never exhausts
  // the step: it goes back to available at the same attempt, however many attempts are left.
  const exhausted =
    failure.errorKind !== ErrorKind.Transient && failure.attempts + 1 >= failure.maxAttempts;
  if (failure.errorKind !== ErrorKind.Permanent && !exhausted) {
    const trigger =
      failure.errorKind === ErrorKind.Transient
        ? StepTrigger.TransientError
        : StepTrigger.RetryableError;
    const moved = await requeue(db, failure.stepId, failure.claimToken, {
      trigger,
      delayMs: failure.retryDelayMs,
      chargeAttempt: trigger === StepTrigger.RetryableError,
      error: failure.error,
      errorKind: failure.errorKind,
      panicStack: failure.panicStack,
      eventType: EventType.StepRetryScheduled,
      detail: { attempt: failure.attempts + 1, delayMs: failure.retryDelayMs },
    });
    return withFollowUps(moved ? 'retried' : 'fenced');
  }
  const discarded = await discardAndSettle(db, failure.stepId, failure.claimToken, {
    change: failure.errorKind === ErrorKind.Permanent ? discardPermanent : discardExhausted,
    error: failure.error,
    errorKind: failure.errorKind,
    panicStack: failure.panicStack,
    chargeAttempt: true,
    detail: { attempt: failure.attempts + 1 },
  });
  return withFollowUps(discarded.value ? 'discarded' : 'fenced', discarded.followUps);
}
