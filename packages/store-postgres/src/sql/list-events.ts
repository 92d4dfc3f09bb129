import { defineQuery } from '../query.js';

/** A run's events in the order they happened, after an optional event id. */
export const listEvents = defineQuery(
  'list-events',
  (t) => `
SELECT id, run_id, step_id, node, type, from_state, to_state, error_kind, detail, at
FROM ${t.events}
WHERE run_id = $1 AND id > coalesce($2::bigint, 0)
ORDER BY id
LIMIT $3
`,
);
