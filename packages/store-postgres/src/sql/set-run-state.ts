import { defineQuery } from '../query.js';
import { Channels } from './channels.js';

/**
 * Moves a run to a new state when its current state allows it, records the event, and on a
 * terminal state stamps `ended_at` and notifies waiters. Runs inside the transaction that holds
 * the run's lock.
 *
 * $1 run id, $2 new state, $3 allowed from-states, $4 terminal?, $5 error kind, $6 error,
 * $7 failed node, $8 event type.
 */
export const setRunState = defineQuery(
  'set-run-state',
  (t) => `
WITH previous AS (
  SELECT state FROM ${t.runs} WHERE id = $1
), changed AS (
  UPDATE ${t.runs} r
  SET state = $2::text,
      ended_at = CASE WHEN $4::boolean THEN now() ELSE NULL END,
      error_kind = coalesce($5::text, r.error_kind),
      error = coalesce($6::text, r.error),
      failed_node = coalesce($7::text, r.failed_node)
  WHERE r.id = $1 AND r.state = ANY($3::text[])
  RETURNING r.id, r.state
), events AS (
  INSERT INTO ${t.events} (run_id, type, from_state, to_state, error_kind)
  SELECT c.id, $8::text, p.state, c.state, $5::text FROM changed c, previous p
), notified AS (
  SELECT pg_notify('${Channels.runsEnded}', id::text) FROM changed WHERE $4::boolean
)
SELECT c.id, c.state, (SELECT count(*) FROM notified) AS notified FROM changed c
`,
);
