import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { recordEvents } from '../events/record-events.js';
import { storedClaimEvent, wasRunning } from '../events/claim-event.js';
import type { ChangeParams } from '../transitions/change-params.js';
import { freedPlacesNotice } from './freed-places-notice.js';
import { stepsEndedNotice } from './steps-ended-notice.js';
import { workflowStepsOfRun } from '../../db/steps-of-run.js';

/** An operator's move of one node's step, by the `force` row of core's table. */
export interface ForceStepParams extends ChangeParams {
  runId: string;
  stepId: string;
  /** The state read under the run's lock: the move's fence and its event's `from_state`. */
  fromState: string;
  eventType: string;
  /** The output a completion stores (JSON text); null otherwise. */
  outputJson: string | null;
  /** A discard's error kind and error; null keeps what the step had. */
  errorKind: string | null;
  error: string | null;
  /** The event's detail (JSON text): `{ forced, reason }`. */
  detail: string;
  /** `completed`: a move to it counts the node off its dependents' `deps_remaining`. */
  completedState: string;
  /** `pending`: the state of the dependents it counts off. */
  pendingState: string;
  /** `running`: a step moved from it has its worker told to abort the handler. */
  runningState: string;
}

/** The moved step. */
export interface ForcedStepRow {
  id: string;
  node: string;
  child_run_id: string | null;
}

/**
 * Moves one node's step by an operator's move, fenced by the state read under the run's lock:
 * stores a completion's output (or a discard's error), counts the step off the run's open steps
 * and, for a completion, off its dependents' `deps_remaining`; records the move's event with its
 * detail (and, for a running step, its claim's event, which the row no longer tells); tells the
 * worker of a running step to abort its handler, whose late result the state fences out. Runs
 * inside the transaction that holds the run's lock; the caller promotes and settles.
 */
const statement = defineStatement<ForceStepParams, ForcedStepRow>(
  'force-step',
  (t, p) => `
WITH moved AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.toState}::text), ended_at = now(), lease_expires_at = NULL,
      output = CASE WHEN (SELECT ${p.toState}::text) = (SELECT ${p.completedState}::text) THEN (SELECT ${p.outputJson}::jsonb)
                    ELSE s.output END,
      error_kind = coalesce((SELECT ${p.errorKind}::text), s.error_kind),
      error = CASE WHEN (SELECT ${p.errorKind}::text) IS NULL THEN s.error ELSE (SELECT ${p.error}::text) END
  WHERE s.id = (SELECT ${p.stepId}::uuid) AND s.run_id = (SELECT ${p.runId}::uuid) AND s.state = (SELECT ${p.fromState}::text)
    AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
  RETURNING s.id, s.run_id, s.node, s.kind, s.attempts, s.started_event_id, s.started_at,
            s.claimed_by, s.child_run_id, (SELECT ${p.fromState}::text) AS from_state
), counted AS (
  UPDATE ${t.runsHot} r SET open_steps = greatest(0, r.open_steps - 1)
  FROM moved WHERE r.id = moved.run_id
), deps AS (
  UPDATE ${t.stepsHot} d SET deps_remaining = d.deps_remaining - 1
  FROM moved
  WHERE (SELECT ${p.toState}::text) = (SELECT ${p.completedState}::text) AND ${workflowStepsOfRun('d', 'moved.run_id')}
    AND moved.node = ANY(d.depends_on) AND d.item_index IS NULL
    AND d.state = (SELECT ${p.pendingState}::text)
), events AS (
  ${recordEvents(t, storedClaimEvent('moved', 'attempts + 1', wasRunning), {
    source: 'moved',
    type: `(SELECT ${p.eventType}::text)`,
    from: 'from_state',
    to: `(SELECT ${p.toState}::text)`,
    trigger: `(SELECT ${p.trigger}::text)`,
    errorKind: `(SELECT ${p.errorKind}::text)`,
    detail: `(SELECT ${p.detail}::jsonb)`,
  })}
), notified AS (${stepsEndedNotice('moved', p.runningState)}
), freed AS (${freedPlacesNotice(t, 'moved')}
)
SELECT id, node, child_run_id, (SELECT count(*) FROM notified) + (SELECT count(*) FROM freed) AS notified
FROM moved
`,
);

/** Moves one node's step by an operator's move (see the statement); empty when fenced out. */
export function forceStepRow(db: SqlRunner, p: ForceStepParams): Promise<ForcedStepRow[]> {
  return db.rows(statement, p);
}
