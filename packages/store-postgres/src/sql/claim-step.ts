import { defineQuery } from '../query.js';

/**
 * Claims one given available step for an engine component rather than a handler (the scheduler
 * failing a step no worker can run), so that what follows is an ordinary fenced outcome.
 *
 * $1 step id, $2 claimant, $3 allowed from-states (claim).
 */
export const claimStep = defineQuery(
  'claim-step',
  (t) => `
WITH claimed AS (
  UPDATE ${t.steps}
  SET state = 'running', claim_token = gen_random_uuid(), claimed_by = $2, started_at = now(),
      lease_expires_at = now() + interval '1 minute'
  WHERE id = $1 AND state = ANY($3::text[])
  RETURNING id, run_id, node, attempts, claim_token
), events AS (
  INSERT INTO ${t.events} (run_id, step_id, node, type, from_state, to_state, detail)
  SELECT run_id, id, node, 'step_started', 'available', 'running',
         jsonb_build_object('attempt', attempts + 1, 'worker', $2::text)
  FROM claimed
)
SELECT id, claim_token, attempts FROM claimed
`,
);
