import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { freedPlacesNotice } from './freed-places-notice.js';
import type { ChangeParams } from '../transitions/change-params.js';
import { recordEvents } from '../events/record-events.js';
import { storedClaimEvent, wasRunning } from '../events/claim-event.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** The steps to cancel and the change that cancels them. */
export interface CancelStepsParams extends ChangeParams {
  runId: string;
  stepIds: string[];
  eventType: string;
}

/** A cancelled step. */
export interface CancelledStepRow {
  id: string;
  node: string;
  /** A cancelled child node's child run, which the caller cancels with it. */
  child_run_id: string | null;
}

/**
 * Cancels steps of one run (and the item tasks of cancelled fan-out nodes), counting them off the
 * run's open steps. Runs inside the transaction that holds the run's lock. A running step's
 * worker finds out at its next heartbeat and aborts its handler. The events record each step's
 * own previous state, read from the statement's snapshot.
 */
const statement = defineStatement<CancelStepsParams, CancelledStepRow>(
  'cancel-steps',
  (t, p) => `
WITH cancelled AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.toState}::text), ended_at = now(), lease_expires_at = NULL
  WHERE ${stepsOfRun('s', `(SELECT ${p.runId}::uuid)`)}
    AND (s.id = ANY((SELECT ${p.stepIds}::uuid[])::uuid[]) OR s.parent_step_id = ANY((SELECT ${p.stepIds}::uuid[])::uuid[]))
    AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
  RETURNING s.id, s.run_id, s.node, s.kind, s.child_run_id, s.attempts, s.started_event_id, s.started_at,
            s.claimed_by, (SELECT x.state FROM ${t.stepsHot} x WHERE x.id = s.id) AS from_state
), counted AS (
  UPDATE ${t.runsHot} r SET open_steps = r.open_steps - (SELECT count(*) FROM cancelled)
  WHERE r.id = (SELECT ${p.runId}::uuid) AND EXISTS (SELECT 1 FROM cancelled)
), events AS (
  ${recordEvents(t, storedClaimEvent('cancelled', 'attempts + 1', wasRunning), {
    source: 'cancelled',
    type: `(SELECT ${p.eventType}::text)`,
    from: 'from_state',
    to: `(SELECT ${p.toState}::text)`,
    trigger: `(SELECT ${p.trigger}::text)`,
  })}
), freed AS (${freedPlacesNotice(t, 'cancelled')}
)
SELECT id, node, child_run_id, (SELECT count(*) FROM freed) AS notified FROM cancelled
`,
);

/** Cancels steps of a run by one change (see the statement). */
export function cancelSteps(db: SqlRunner, p: CancelStepsParams): Promise<CancelledStepRow[]> {
  return db.rows(statement, p);
}
