import { defineQuery } from '../query.js';

/**
 * Discards a running step (a permanent error, or the last attempt failed), fenced by its claim
 * token, and counts it off its run's open steps. Runs inside the transaction that holds the run's
 * lock; the caller then settles the run (fail-fast or branch cancellation, the run's new state).
 *
 * $1 step id, $2 claim token, $3 error, $4 error kind, $5 panic stack, $6 event type,
 * $7 allowed from-states, $8 event detail, $9 charge an attempt (not for the reclaim limit),
 * $10 only if the lease has expired (the reclaim limit: the sweep found the step expired before it
 * took the run's lock, and a heartbeat may have renewed the lease since; a live lease wins).
 */
export const discardStep = defineQuery(
  'discard-step',
  (t) => `
WITH gone AS (
  UPDATE ${t.steps} s
  SET state = 'discarded', attempts = s.attempts + CASE WHEN $9::boolean THEN 1 ELSE 0 END, error = $3::text, error_kind = $4::text,
      panic_stack = $5::text, ended_at = now(), lease_expires_at = NULL
  WHERE s.id = $1 AND s.claim_token = $2 AND s.state = ANY($7::text[])
    AND (NOT $10::boolean OR s.lease_expires_at < now())
  RETURNING s.id, s.run_id, s.node, s.attempts, s.started_at
), counted AS (
  UPDATE ${t.runs} r
  SET open_steps = r.open_steps - 1,
      failure_count = r.failure_count + CASE WHEN $9::boolean THEN 1 ELSE 0 END,
      started_at = coalesce(r.started_at, (SELECT min(x.started_at) FROM ${t.steps} x
                                           WHERE x.run_id = r.id))
  FROM gone WHERE r.id = gone.run_id
), events AS (
  INSERT INTO ${t.events} (run_id, step_id, node, type, from_state, to_state, error_kind, detail)
  SELECT run_id, id, node, $6::text, 'running', 'discarded', $4::text, $8::jsonb FROM gone
)
SELECT id, run_id, node, attempts FROM gone
`,
);
