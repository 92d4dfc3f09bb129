import { ErrorKind, RunState, StepState, StepTrigger, stepChange } from '@cyclone/core';
import type { Executor } from '../db/executor.js';
import { singleFrom } from '../tables/changes.js';
import { discard } from '../settlement/discard-and-settle.js';
import { findReclaimLimited } from '../tables/steps/find-reclaim-limited.js';
import { reclaimExpiredLeases } from '../tables/steps/reclaim-expired-leases.js';

const reclaim = stepChange(StepTrigger.Reclaim, StepState.Available);
const reclaimPaused = stepChange(StepTrigger.Reclaim, StepState.Paused);
const discardReclaimLimit = stepChange(StepTrigger.ReclaimLimit, StepState.Exhausted);

/**
 * The recovery sweep: steps whose lease expired go back to available (reclaims + 1, no attempt
 * charged, no backoff), or are discarded with `reclaim_limit` once reclaimed `maxReclaims`
 * times. Returns how many steps it moved.
 */
export async function reclaimExpired(db: Executor, limit = 500): Promise<number> {
  const moved = await db.retrying((exec) =>
    reclaimExpiredLeases(exec, {
      limit,
      toState: reclaim.to,
      fromStates: reclaim.from,
      eventFrom: singleFrom(reclaim),
      trigger: reclaim.trigger,
      pausedRunState: RunState.Paused,
      pausedToState: reclaimPaused.to,
      pausedFromStates: reclaimPaused.from,
      pausedEventFrom: singleFrom(reclaimPaused),
      pausedTrigger: reclaimPaused.trigger,
    }),
  );
  let discarded = 0;
  for (const step of await findReclaimLimited(db, { limit })) {
    const gone = await discard(db, step.id, step.claim_token, {
      change: discardReclaimLimit,
      error: `lease expired after ${step.reclaims} reclaims`,
      errorKind: ErrorKind.ReclaimLimit,
      panicStack: null,
      chargeAttempt: false,
      detail: { reclaims: step.reclaims },
      requireExpiredLease: true,
    });
    if (gone) discarded++;
  }
  return moved.length + discarded;
}
