import { defineQuery } from '../query.js';

/**
 * Takes or renews a named leader lease. Returns a row only when the caller holds the lease
 * afterwards: it held it already, or the previous holder's lease had expired.
 *
 * $1 lease name, $2 holder id, $3 lease ms.
 */
export const attemptLeadership = defineQuery(
  'attempt-leadership',
  (t) => `
INSERT INTO ${t.leaders} AS l (name, holder, expires_at)
VALUES ($1, $2, now() + $3::bigint * interval '1 millisecond')
ON CONFLICT (name) DO UPDATE
SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
WHERE l.holder = EXCLUDED.holder OR l.expires_at < now()
RETURNING holder, expires_at
`,
);
