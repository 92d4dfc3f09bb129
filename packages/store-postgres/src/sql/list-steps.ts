import { defineQuery } from '../query.js';
import { STEP_COLUMNS } from './run-columns.js';

/** A run's steps in creation order (nodes, then item tasks in item order), with outputs. */
export const listSteps = defineQuery(
  'list-steps',
  (t) => `
SELECT ${STEP_COLUMNS}, output FROM ${t.steps}
WHERE run_id = $1
ORDER BY item_index NULLS FIRST, created_at, id
`,
);
