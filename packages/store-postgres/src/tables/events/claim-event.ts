import { EventType, StepState, StepTrigger, stepChange } from '@cyclone/core';
import { singleFrom } from '../transitions/change-params.js';
import { sqlConstant, type EventValues } from './record-events.js';

/** `available -> running` by `claim`: the change every claim makes. */
export const claimChange = stepChange(StepTrigger.Claim, StepState.Running);

/**
 * The `step_started` event of a claim that ends otherwise than in a handler's success (a retry, a
 * snooze, a release, a discard, a reclaim, a cancel), to store in the statement that ends it.
 * While a claim runs, and once it succeeded, its step row tells this event (`cyclone_history`,
 * decision 134), so the claim stores none; once the row moves on it no longer can, so the event is
 * stored then, under the id and the time the claim took. A claim taken before the row kept them
 * (no `started_event_id`) stored its event already and is skipped.
 *
 * @param source - a CTE of the moved steps, with `started_event_id`, `started_at`, `claimed_by`
 * @param attempt - the claim's attempt, as SQL over `source`
 * @param where - the rows of `source` that were running (all of them when omitted)
 */
export function storedClaimEvent(source: string, attempt: string, where?: string): EventValues {
  return {
    source,
    where: `started_event_id IS NOT NULL${where === undefined ? '' : ` AND ${where}`}`,
    id: 'started_event_id',
    at: 'started_at',
    type: sqlConstant(EventType.StepStarted),
    from: sqlConstant(singleFrom(claimChange)),
    to: sqlConstant(claimChange.to),
    trigger: sqlConstant(claimChange.trigger),
    detail: `jsonb_build_object('attempt', ${attempt}, 'worker', claimed_by)`,
  };
}

/** SQL over a source with a `from_state` column: the rows that were running (their claim ends). */
export const wasRunning = `from_state = ${sqlConstant(claimChange.to)}`;
