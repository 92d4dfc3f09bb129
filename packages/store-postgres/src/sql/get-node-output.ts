import { defineQuery } from '../query.js';

/** The node step (not an item task) of a run with the given name, with its output. */
export const getNodeOutput = defineQuery(
  'get-node-output',
  (t) => `
SELECT id, node, state, output FROM ${t.steps}
WHERE run_id = $1 AND node = $2 AND item_index IS NULL
`,
);
