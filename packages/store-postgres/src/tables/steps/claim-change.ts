import { EventType, StepState, StepTrigger, stepChange } from '@cyclone/core';
import type { Placeholders } from '../../db/statement.js';
import { singleFrom } from '../transitions/change-params.js';
import type { Tables } from '../../db/tables.js';
import { eventTypeSql, recordEvents } from '../events/record-events.js';
import type { SingleFromChangeParams } from '../transitions/change-params.js';

/** `available -> running` by `claim`: the one change both claim statements make. */
export const claimChange = stepChange(StepTrigger.Claim, StepState.Running);

/** The parameters a claim statement binds from {@link claimChange}. */
export interface ClaimChangeParams extends SingleFromChangeParams {
  /** The claimant, recorded on the step and its event. */
  workerId: string;
}

/** {@link ClaimChangeParams} for a claimant. */
export function claimChangeParams(workerId: string): ClaimChangeParams {
  return {
    toState: claimChange.to,
    fromStates: claimChange.from,
    trigger: claimChange.trigger,
    eventFrom: singleFrom(claimChange),
    workerId,
  };
}

/**
 * The `step_started` events of the steps a claim statement moved (its CTE `claimed`), shared by
 * the worker's claim and the scheduler's single-step claim so both record the same event.
 */
export function startedEvents(t: Tables, p: Placeholders<ClaimChangeParams>): string {
  return recordEvents(t, {
    source: 'claimed',
    type: eventTypeSql(EventType.StepStarted),
    from: `${p.eventFrom}::text`,
    to: `${p.toState}::text`,
    trigger: `${p.trigger}::text`,
    detail: `jsonb_build_object('attempt', attempts + 1, 'worker', ${p.workerId}::text)`,
  });
}
