import { EventType } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { stepsEndedNotice } from '../steps/steps-ended-notice.js';
import { freedPlacesNotice } from '../steps/freed-places-notice.js';
import { sqlConstant, recordEvents } from '../events/record-events.js';
import type { ChangeParams } from '../transitions/change-params.js';
import { storedClaimEvent, wasRunning } from '../events/claim-event.js';

/** The fan-out node whose open item tasks to cancel, and the change that cancels them. */
export interface CancelItemsParams extends ChangeParams {
  nodeId: string;
  runningState: string;
}

/**
 * Cancels the open item tasks of a discarded fan-out node (every item must succeed, so the others
 * stop), counts them off the run's open steps, records each one's event with its own previous
 * state, and tells the workers of the running ones to abort their handlers (a late result is
 * fenced out by the state). Runs under the run's lock.
 */
const statement = defineStatement<CancelItemsParams, { id: string }>(
  'cancel-items',
  (t, p) => `
WITH cancelled AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.toState}::text), ended_at = now(), lease_expires_at = NULL
  WHERE s.parent_step_id = (SELECT ${p.nodeId}::uuid) AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
  RETURNING s.id, s.run_id, s.node, s.kind, s.attempts, s.started_event_id, s.started_at, s.claimed_by,
            (SELECT x.state FROM ${t.stepsHot} x WHERE x.id = s.id) AS from_state
), counted AS (
  UPDATE ${t.runsHot} r SET open_steps = r.open_steps - (SELECT count(*) FROM cancelled)
  WHERE r.id = (SELECT run_id FROM cancelled LIMIT 1)
), events AS (
  ${recordEvents(t, storedClaimEvent('cancelled', 'attempts + 1', wasRunning), {
    source: 'cancelled',
    type: sqlConstant(EventType.StepCancelledFanOutItem),
    from: 'from_state',
    to: `(SELECT ${p.toState}::text)`,
    trigger: `(SELECT ${p.trigger}::text)`,
  })}
), notified AS (${stepsEndedNotice('cancelled', p.runningState)}
), freed AS (${freedPlacesNotice(t, 'cancelled')}
)
SELECT id, (SELECT count(*) FROM notified) + (SELECT count(*) FROM freed) AS notified
FROM cancelled
`,
);

/** Cancels a fan-out node's open item tasks (see the statement); resolves with how many. */
export async function cancelItems(db: SqlRunner, p: CancelItemsParams): Promise<number> {
  return (await db.rows(statement, p)).length;
}
