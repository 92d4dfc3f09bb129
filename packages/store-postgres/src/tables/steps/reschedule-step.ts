import type { SqlRunner } from '../../db/sql-runner.js';
import { Channels } from '../../db/channels.js';
import { defineStatement } from '../../db/statement.js';
import { recordEvents } from '../events/record-events.js';
import type { Prefixed, SingleFromChangeParams } from '../transitions/change-params.js';
import { storedClaimEvent } from '../events/claim-event.js';

/**
 * A step given back to the queue: the change into `available` (a running run), and under
 * `paused*` the change into `paused` a paused run redirects it to.
 */
export interface RescheduleStepParams
  extends SingleFromChangeParams, Prefixed<'paused', SingleFromChangeParams> {
  stepId: string;
  claimToken: string;
  delayMs: number;
  chargeAttempt: boolean;
  error: string | null;
  /** Null keeps the recorded error. */
  errorKind: string | null;
  panicStack: string | null;
  eventType: string;
  detail: string | null;
  /** The run state that redirects the step to `paused`. */
  pausedRunState: string;
}

/** The moved step. */
export interface RescheduledStepRow {
  id: string;
  state: string;
  attempts: number;
  scheduled_at: Date;
}

/**
 * Gives a running step back to the queue: after a retryable error (attempt charged, backoff),
 * a snooze or a transient input error (no attempt charged), or a graceful release. Fenced by the
 * claim token. When the run is paused the step takes the paused change instead, in the same
 * statement, so a paused run never has a claimable step. A charged attempt also counts on the
 * run's failures.
 */
const statement = defineStatement<RescheduleStepParams, RescheduledStepRow>(
  'reschedule-step',
  (t, p) => `
WITH run AS (
  SELECT r.id, r.state, r.state = (SELECT ${p.pausedRunState}::text) AS paused FROM ${t.runsHot} r
  WHERE r.id = (SELECT run_id FROM ${t.stepsHot} WHERE id = (SELECT ${p.stepId}::uuid))
  FOR UPDATE
), moved AS (
  UPDATE ${t.stepsHot} s
  SET state = CASE WHEN run.paused THEN (SELECT ${p.pausedToState}::text) ELSE (SELECT ${p.toState}::text) END,
      attempts = s.attempts + CASE WHEN (SELECT ${p.chargeAttempt}::boolean) THEN 1 ELSE 0 END,
      scheduled_at = now() + (SELECT ${p.delayMs}::bigint) * interval '1 millisecond',
      error = CASE WHEN (SELECT ${p.errorKind}::text) IS NULL THEN s.error ELSE (SELECT ${p.error}::text) END,
      error_kind = coalesce((SELECT ${p.errorKind}::text), s.error_kind),
      panic_stack = CASE WHEN (SELECT ${p.errorKind}::text) IS NULL THEN s.panic_stack
                         ELSE (SELECT ${p.panicStack}::text) END,
      lease_expires_at = NULL
  FROM run
  WHERE s.id = (SELECT ${p.stepId}::uuid) AND s.claim_token = (SELECT ${p.claimToken}::uuid) AND s.run_id = run.id
    AND s.state = ANY(CASE WHEN run.paused THEN (SELECT ${p.pausedFromStates}::text[])
                           ELSE (SELECT ${p.fromStates}::text[]) END)
  RETURNING s.id, s.run_id, s.node, s.kind, s.state, s.attempts, s.scheduled_at, run.paused,
            s.started_event_id, s.started_at, s.claimed_by
), counted AS (
  UPDATE ${t.runsHot} r SET failure_count = r.failure_count + 1
  FROM moved WHERE r.id = moved.run_id AND (SELECT ${p.chargeAttempt}::boolean)
), events AS (
  ${recordEvents(
    t,
    storedClaimEvent(
      'moved',
      `attempts + CASE WHEN (SELECT ${p.chargeAttempt}::boolean) THEN 0 ELSE 1 END`,
    ),
    {
      source: 'moved',
      type: `(SELECT ${p.eventType}::text)`,
      from: `CASE WHEN paused THEN (SELECT ${p.pausedEventFrom}::text) ELSE (SELECT ${p.eventFrom}::text) END`,
      to: 'state',
      trigger: `CASE WHEN paused THEN (SELECT ${p.pausedTrigger}::text) ELSE (SELECT ${p.trigger}::text) END`,
      errorKind: `(SELECT ${p.errorKind}::text)`,
      detail: `(SELECT ${p.detail}::jsonb)`,
    },
  )}
), notified AS (
  SELECT pg_notify('${Channels.stepsAvailable}', kind) FROM moved
  -- Due now; or of a kind with a flow limit, whose place under a cap is free now (the step's
  -- own retry may come later, but steps the cap held back can start).
  WHERE (NOT paused AND scheduled_at <= now())
     OR kind IN (SELECT l.kind FROM ${t.limits} l)
)
SELECT m.id, m.state, m.attempts, m.scheduled_at, (SELECT count(*) FROM notified) AS notified
FROM moved m
`,
);

/** Gives a running step back (see the statement); empty when fenced out. */
export function rescheduleStep(
  db: SqlRunner,
  p: RescheduleStepParams,
): Promise<RescheduledStepRow[]> {
  return db.rows(statement, p);
}
