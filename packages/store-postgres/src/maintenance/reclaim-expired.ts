import { ErrorKind, RunState, StepState, StepTrigger, stepChange } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { discardAndSettle } from '../settlement/discard-and-settle.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import { prefixed, singleFromChangeParams } from '../tables/transitions/change-params.js';
import { findReclaimLimited } from '../tables/steps/find-reclaim-limited.js';
import { reclaimExpiredLeases } from '../tables/steps/reclaim-expired-leases.js';

const reclaim = singleFromChangeParams(stepChange(StepTrigger.Reclaim, StepState.Available));
const reclaimPaused = prefixed(
  'paused',
  singleFromChangeParams(stepChange(StepTrigger.Reclaim, StepState.Paused)),
);
const discardReclaimLimit = stepChange(StepTrigger.ReclaimLimit, StepState.Exhausted);

/**
 * The recovery sweep: steps whose lease expired go back to available (reclaims + 1, no attempt
 * charged, no backoff), or are discarded with `reclaim_limit` once reclaimed `maxReclaims`
 * times, each discard settling its run. `value` is how many steps it moved.
 */
export async function reclaimExpired(db: SqlRunner, limit = 500): Promise<WithFollowUps<number>> {
  const moved = await db.retrying((exec) =>
    reclaimExpiredLeases(exec, {
      limit,
      ...reclaim,
      ...reclaimPaused,
      pausedRunState: RunState.Paused,
    }),
  );
  let discarded = 0;
  const followUps: string[] = [];
  for (const step of await findReclaimLimited(db, { limit })) {
    const gone = await discardAndSettle(db, step.id, step.claim_token, {
      change: discardReclaimLimit,
      error: `lease expired after ${step.reclaims} reclaims`,
      errorKind: ErrorKind.ReclaimLimit,
      panicStack: null,
      chargeAttempt: false,
      detail: { reclaims: step.reclaims },
      requireExpiredLease: true,
    });
    if (gone.value) discarded++;
    followUps.push(...gone.followUps);
  }
  return withFollowUps(moved.length + discarded, followUps);
}
