import { StepState, StepTrigger, stepChange } from '@cyclone/core';
import type { Placeholders } from '../../db/statement.js';
import { singleFrom } from '../changes.js';
import type { Tables } from '../../db/tables.js';

/** `available -> running` by `claim`: the one change both claim statements make. */
export const claimChange = stepChange(StepTrigger.Claim, StepState.Running);

/** The parameters a claim statement binds from {@link claimChange}. */
export interface ClaimChangeParams {
  /** The state written: `running`. */
  toState: string;
  /** The states a step may be claimed from. */
  fromStates: readonly string[];
  trigger: string;
  /** The `from_state` of the `step_started` event. */
  eventFrom: string;
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
  return `INSERT INTO ${t.events} (run_id, step_id, node, type, from_state, to_state, trigger, detail)
  SELECT run_id, id, node, 'step_started', ${p.eventFrom}::text, ${p.toState}::text,
         ${p.trigger}::text, jsonb_build_object('attempt', attempts + 1, 'worker', ${p.workerId}::text)
  FROM claimed`;
}
