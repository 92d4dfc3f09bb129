import { defineQuery } from '../query.js';

/** Locks the run of a step (see `lock-run`), found by the step's id. */
export const lockRunOfStep = defineQuery(
  'lock-run-of-step',
  (t) => `
SELECT r.id, r.state FROM ${t.runs} r
WHERE r.id = (SELECT run_id FROM ${t.steps} WHERE id = $1)
FOR UPDATE
`,
);
