import { defineQuery } from '../query.js';

/**
 * The recovery sweep's second half: running steps whose lease expired although they were already
 * reclaimed `max_reclaims` times. Each is then discarded with error kind `reclaim_limit`.
 *
 * $1 limit.
 */
export const findReclaimLimited = defineQuery(
  'find-reclaim-limited',
  (t) => `
SELECT s.id, s.run_id, s.claim_token, s.reclaims FROM ${t.steps} s JOIN ${t.runs} r ON r.id = s.run_id
WHERE s.state = 'running' AND s.lease_expires_at < now()
  AND r.max_reclaims IS NOT NULL AND s.reclaims >= r.max_reclaims
ORDER BY s.lease_expires_at
LIMIT $1
`,
);
