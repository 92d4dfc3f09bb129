import { EventType } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { sqlConstant, recordEvents } from '../events/record-events.js';
import type { SingleFromChangeParams } from '../transitions/change-params.js';

/** A fan-out node to discard and why. */
export interface DiscardFanOutParams extends SingleFromChangeParams {
  nodeId: string;
  error: string;
  errorKind: string;
  /** Facts for the event (the item that failed, the limit that was broken); never payloads. */
  detail: string;
}

/**
 * Discards a pending fan-out node (`fan_out_failed`) with the error and kind given, counts it off
 * its run's open steps and records the event. No attempt is charged: no worker ran the node (an
 * item task that failed charged its own). Runs under the run's lock; the caller then cancels the
 * node's other item tasks and settles the run.
 */
const statement = defineStatement<DiscardFanOutParams, { id: string }>(
  'discard-fan-out',
  (t, p) => `
WITH gone AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.toState}::text), error = (SELECT ${p.error}::text), error_kind = (SELECT ${p.errorKind}::text),
      ended_at = now()
  WHERE s.id = (SELECT ${p.nodeId}::uuid) AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
  RETURNING s.id, s.run_id, s.node
), counted AS (
  UPDATE ${t.runsHot} r SET open_steps = r.open_steps - 1 FROM gone WHERE r.id = gone.run_id
), events AS (
  ${recordEvents(t, {
    source: 'gone',
    type: sqlConstant(EventType.StepDiscarded),
    from: `(SELECT ${p.eventFrom}::text)`,
    to: `(SELECT ${p.toState}::text)`,
    trigger: `(SELECT ${p.trigger}::text)`,
    errorKind: `(SELECT ${p.errorKind}::text)`,
    detail: `(SELECT ${p.detail}::jsonb)`,
  })}
)
SELECT id FROM gone
`,
);

/** Discards a fan-out node (see the statement); false when it was no longer pending. */
export async function discardFanOut(db: SqlRunner, p: DiscardFanOutParams): Promise<boolean> {
  return (await db.rows(statement, p)).length > 0;
}
