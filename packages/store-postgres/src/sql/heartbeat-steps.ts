import { defineQuery } from '../query.js';

/**
 * Extends the leases of steps a worker still runs. A step missing from the result has lost its
 * lease (reclaimed, cancelled, or ended), and its handler should be aborted.
 *
 * $1 step ids, $2 claim tokens, $3 lease ms.
 */
export const heartbeatSteps = defineQuery(
  'heartbeat-steps',
  (t) => `
UPDATE ${t.steps} s
SET lease_expires_at = now() + $3::bigint * interval '1 millisecond'
FROM unnest($1::uuid[], $2::uuid[]) AS h(id, token)
WHERE s.id = h.id AND s.claim_token = h.token AND s.state = 'running'
RETURNING s.id
`,
);
