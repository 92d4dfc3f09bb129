import { claimChange } from '../events/claim-event.js';
import { changeParams, singleFrom, type ChangeParams } from '../transitions/change-params.js';

/**
 * The one state a step is claimed from (`available`), written into the claim statement as a
 * literal so that it matches the partial claim index (`WHERE state = 'available'`).
 */
export const ClaimedFromState = singleFrom(claimChange);

/** The parameters a claim statement binds from core's `available -> running` by `claim`. */
export interface ClaimChangeParams extends ChangeParams {
  /** The claimant, recorded on the step (`claimed_by`), which tells the claim's event. */
  workerId: string;
}

/** {@link ClaimChangeParams} for a claimant. */
export function claimChangeParams(workerId: string): ClaimChangeParams {
  return { ...changeParams(claimChange), workerId };
}

/**
 * The SQL a claim statement sets on each step it claims, besides the state: a fresh claim token
 * (the fence of every later write), the claimant, a lease, the start, and the id of the claim's
 * `step_started` event, which the row tells from now on (`cyclone_history`).
 */
export function claimColumns(t: { eventIds: string }, workerId: string, leaseMs: string): string {
  return `claim_token = gen_random_uuid(), claimed_by = ${workerId},
      lease_expires_at = now() + ${leaseMs}::bigint * interval '1 millisecond', started_at = now(),
      started_event_id = nextval(${t.eventIds})`;
}
