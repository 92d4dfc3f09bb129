import { defineQuery } from '../query.js';

/** The node steps of a run (item tasks excluded), for the run-state rule. */
export const loadRunNodes = defineQuery(
  'load-run-nodes',
  (t) => `
SELECT id, node, node_type, state, depends_on, deps_remaining, on_dep_failure, error_kind, error
FROM ${t.steps}
WHERE run_id = $1 AND item_index IS NULL
ORDER BY created_at, id
`,
);
