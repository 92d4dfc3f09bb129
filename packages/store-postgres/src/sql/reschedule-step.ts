import { defineQuery } from '../query.js';
import { Channels } from './channels.js';

/**
 * Gives a running step back to the queue: after a retryable error (attempt charged, backoff),
 * a snooze or a transient input error (no attempt charged), or a graceful release. Fenced by the
 * claim token. When the run is paused the step goes on to `paused` in the same statement, so a
 * paused run never has a claimable step. A charged attempt also counts on the run's failures.
 *
 * $1 step id, $2 claim token, $3 delay ms, $4 charge an attempt, $5 error, $6 error kind (null
 * keeps the recorded error), $7 panic stack, $8 event type, $9 allowed from-states into
 * available, $10 allowed from-states into paused, $11 event detail.
 */
export const rescheduleStep = defineQuery(
  'reschedule-step',
  (t) => `
WITH run AS (
  SELECT r.id, r.state FROM ${t.runs} r
  WHERE r.id = (SELECT run_id FROM ${t.steps} WHERE id = $1)
  FOR UPDATE
), moved AS (
  UPDATE ${t.steps} s
  SET state = CASE WHEN run.state = 'paused' THEN 'paused' ELSE 'available' END,
      attempts = s.attempts + CASE WHEN $4::boolean THEN 1 ELSE 0 END,
      scheduled_at = now() + $3::bigint * interval '1 millisecond',
      error = CASE WHEN $6::text IS NULL THEN s.error ELSE $5::text END,
      error_kind = coalesce($6::text, s.error_kind),
      panic_stack = CASE WHEN $6::text IS NULL THEN s.panic_stack ELSE $7::text END,
      lease_expires_at = NULL
  FROM run
  WHERE s.id = $1 AND s.claim_token = $2 AND s.run_id = run.id
    AND s.state = ANY(CASE WHEN run.state = 'paused' THEN $10::text[] ELSE $9::text[] END)
  RETURNING s.id, s.run_id, s.node, s.kind, s.state, s.attempts, s.scheduled_at
), counted AS (
  UPDATE ${t.runs} r SET failure_count = r.failure_count + 1
  FROM moved WHERE r.id = moved.run_id AND $4::boolean
), events AS (
  INSERT INTO ${t.events} (run_id, step_id, node, type, from_state, to_state, error_kind, detail)
  SELECT run_id, id, node, $8::text, 'running', state, $6::text, $11::jsonb FROM moved
), notified AS (
  SELECT pg_notify('${Channels.stepsAvailable}', kind) FROM moved
  WHERE state = 'available' AND scheduled_at <= now()
)
SELECT m.id, m.state, m.attempts, m.scheduled_at, (SELECT count(*) FROM notified) AS notified
FROM moved m
`,
);
