import type { StepChange } from '@cyclone/core';
import type { Executor } from '../db/executor.js';
import { singleFrom } from '../tables/changes.js';
import { lockRunOfStep } from '../tables/runs/lock-run-of-step.js';
import { settleChain } from './settle-follow-ups.js';
import { settleRun } from './settle-run.js';
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
    eventType: 'step_discarded',
    detail: JSON.stringify({ ...p.detail, trigger: p.change.trigger }),
    chargeAttempt: p.chargeAttempt,
    requireExpiredLease: p.requireExpiredLease ?? false,
    toState: p.change.to,
    fromStates: p.change.from,
    eventFrom: singleFrom(p.change),
    trigger: p.change.trigger,
  };
}

/**
 * Discards a running step, fenced by its claim, and settles its run (fail-fast or branch
 * cancellation, the run's new state), all in one transaction. False when fenced out.
 */
export async function discard(
  db: Executor,
  stepId: string,
  claimToken: string,
  p: Discard,
): Promise<boolean> {
  const followUps: string[] = [];
  const done = await db.transaction(async (tx) => {
    followUps.length = 0;
    const run = await lockRunOfStep(tx, { stepId });
    if (!run) return false;
    const gone = await discardStep(tx, discardParams(stepId, claimToken, p));
    if (gone.length === 0) return false;
    followUps.push(...(await settleRun(tx, run.id)));
    return true;
  });
  // A child run that failed wrote its parent to the outbox: its child node learns of it now.
  await settleChain(db, followUps);
  return done;
}
