import { EventType } from '@cyclone/core';
import type { StepChange } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { singleFromChangeParams } from '../tables/transitions/change-params.js';
import { lockRunOfStep } from '../tables/runs/lock-run-of-step.js';
import { settleInTransaction } from './settle-in-transaction.js';
import { withFollowUps, type WithFollowUps } from './settle-after-commit.js';
import { discardStep, type DiscardStepParams } from '../tables/steps/discard-step.js';

/** What a discard records. */
export interface Discard {
  /** A `-> discarded` change of core's table. */
  readonly change: StepChange;
  readonly error: string;
  readonly errorKind: string;
  readonly panicStack: string | null;
  readonly chargeAttempt: boolean;
  readonly detail: Record<string, unknown>;
  /** Discard only if the lease has (still) expired: the reclaim limit. */
  readonly requireExpiredLease?: boolean;
}

/** The statement parameters of a discard, inside a transaction that holds the run's lock. */
export function discardParams(stepId: string, claimToken: string, p: Discard): DiscardStepParams {
  return {
    stepId,
    claimToken,
    error: p.error,
    errorKind: p.errorKind,
    panicStack: p.panicStack,
    eventType: EventType.StepDiscarded,
    detail: JSON.stringify({ ...p.detail, trigger: p.change.trigger }),
    chargeAttempt: p.chargeAttempt,
    requireExpiredLease: p.requireExpiredLease ?? false,
    ...singleFromChangeParams(p.change),
  };
}

/**
 * Discards a running step, fenced by its claim, and settles its run (fail-fast or branch
 * cancellation, the run's new state), all in one transaction. `value` is false when fenced out.
 */
export function discardAndSettle(
  db: SqlRunner,
  stepId: string,
  claimToken: string,
  p: Discard,
): Promise<WithFollowUps<boolean>> {
  return db.transaction(async (tx) => {
    const run = await lockRunOfStep(tx, { stepId });
    if (!run) return withFollowUps(false);
    const gone = await discardStep(tx, discardParams(stepId, claimToken, p));
    if (gone.length === 0) return withFollowUps(false);
    // A child run that failed wrote its parent to the outbox: a follow-up of the discard.
    return withFollowUps(true, await settleInTransaction(tx, run.id));
  });
}
