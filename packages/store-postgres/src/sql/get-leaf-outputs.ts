import { defineQuery } from '../query.js';

/**
 * The completed leaf nodes of a run (nodes no other node depends on) with their outputs: the
 * run's result.
 */
export const getLeafOutputs = defineQuery(
  'get-leaf-outputs',
  (t) => `
SELECT s.node, s.output FROM ${t.steps} s
WHERE s.run_id = $1 AND s.item_index IS NULL AND s.state = 'completed'
  AND NOT EXISTS (
    SELECT 1 FROM ${t.steps} d
    WHERE d.run_id = s.run_id AND d.item_index IS NULL AND s.node = ANY(d.depends_on)
  )
ORDER BY s.created_at, s.id
`,
);
