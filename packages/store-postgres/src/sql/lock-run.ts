import { defineQuery } from '../query.js';

/**
 * Locks a run for the rest of the transaction. Every writer that may change a run's state or
 * several of its steps takes this lock first, so they serialise per run and cannot deadlock.
 */
export const lockRun = defineQuery(
  'lock-run',
  (t) => `
SELECT id, workflow, definition_hash, state, input, open_steps, parent_run_id, parent_step_id,
       max_reclaims, paused_at, error_kind, error, failed_node
FROM ${t.runs} WHERE id = $1 FOR UPDATE
`,
);
