import { defineQuery } from '../query.js';

/**
 * Cancels steps of one run (and the item tasks of cancelled fan-out nodes), counting them off the
 * run's open steps. Runs inside the transaction that holds the run's lock. A running step's
 * worker finds out at its next heartbeat and aborts its handler.
 *
 * $1 run id, $2 step ids, $3 event type, $4 allowed from-states.
 */
export const cancelSteps = defineQuery(
  'cancel-steps',
  (t) => `
WITH cancelled AS (
  UPDATE ${t.steps} s
  SET state = 'cancelled', ended_at = now(), lease_expires_at = NULL
  WHERE s.run_id = $1 AND (s.id = ANY($2::uuid[]) OR s.parent_step_id = ANY($2::uuid[]))
    AND s.state = ANY($4::text[])
  RETURNING s.id, s.run_id, s.node, (SELECT x.state FROM ${t.steps} x WHERE x.id = s.id) AS from_state
), counted AS (
  UPDATE ${t.runs} r SET open_steps = r.open_steps - (SELECT count(*) FROM cancelled)
  WHERE r.id = $1 AND EXISTS (SELECT 1 FROM cancelled)
), events AS (
  INSERT INTO ${t.events} (run_id, step_id, node, type, from_state, to_state)
  SELECT run_id, id, node, $3::text, from_state, 'cancelled' FROM cancelled
)
SELECT id, node FROM cancelled
`,
);
