import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { stepsEndedNotice } from './steps-ended-notice.js';
import { freedPlacesNotice } from './freed-places-notice.js';
import { recordEvents } from '../events/record-events.js';
import type { ChangeParams } from '../transitions/change-params.js';
import { storedClaimEvent, wasRunning } from '../events/claim-event.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** The run whose open steps to end, and the change that ends them. */
export interface EndRunStepsParams extends ChangeParams {
  runId: string;
  eventType: string;
  /** Recorded on each step; null keeps what the step had (a cancel records no error). */
  errorKind: string | null;
  error: string | null;
  /** The state whose steps' workers are told to abort their handlers. */
  runningState: string;
}

/** An ended step. */
export interface EndedStepRow {
  id: string;
  node: string;
  from_state: string;
  child_run_id: string | null;
}

/**
 * Ends every step of one run that the change allows (cancel: every non-terminal step; run
 * deadline: every one but the paused), records one event per step with its own previous state,
 * recounts the run's open steps, and tells the workers of the running ones to abort. Runs inside
 * the transaction that holds the run's lock.
 */
const statement = defineStatement<EndRunStepsParams, EndedStepRow>(
  'end-run-steps',
  (t, p) => `
WITH ended AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.toState}::text), ended_at = now(), lease_expires_at = NULL,
      error_kind = coalesce((SELECT ${p.errorKind}::text), s.error_kind),
      error = CASE WHEN (SELECT ${p.errorKind}::text) IS NULL THEN s.error ELSE (SELECT ${p.error}::text) END
  WHERE ${stepsOfRun('s', `(SELECT ${p.runId}::uuid)`)} AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
  RETURNING s.id, s.run_id, s.node, s.kind, s.child_run_id, s.attempts, s.started_event_id, s.started_at,
            s.claimed_by, (SELECT x.state FROM ${t.stepsHot} x WHERE x.id = s.id) AS from_state
), counted AS (
  UPDATE ${t.runsHot} r SET open_steps = greatest(0, r.open_steps - (SELECT count(*) FROM ended))
  WHERE r.id = (SELECT ${p.runId}::uuid) AND EXISTS (SELECT 1 FROM ended)
), events AS (
  ${recordEvents(t, storedClaimEvent('ended', 'attempts + 1', wasRunning), {
    source: 'ended',
    type: `(SELECT ${p.eventType}::text)`,
    from: 'from_state',
    to: `(SELECT ${p.toState}::text)`,
    trigger: `(SELECT ${p.trigger}::text)`,
    errorKind: `(SELECT ${p.errorKind}::text)`,
  })}
), notified AS (${stepsEndedNotice('ended', p.runningState)}
), freed AS (${freedPlacesNotice(t, 'ended')}
)
SELECT id, node, from_state, child_run_id, (SELECT count(*) FROM notified) + (SELECT count(*) FROM freed) AS notified
FROM ended
`,
);

/** Ends a run's open steps by one change (see the statement). */
export function endRunSteps(db: SqlRunner, p: EndRunStepsParams): Promise<EndedStepRow[]> {
  return db.rows(statement, p);
}
