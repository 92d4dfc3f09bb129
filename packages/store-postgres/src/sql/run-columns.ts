/** The columns every run read returns, in the shape `toRunStatus` maps. */
export const RUN_COLUMNS = `id, workflow, state, error_kind, error, failed_node, parent_run_id,
  idempotency_key, deadline_at, failure_count, reclaim_count, created_at, started_at, ended_at`;

/** The columns every step read returns, in the shape `toStepStatus` maps (output excluded). */
export const STEP_COLUMNS = `id, run_id, node, node_type, kind, state, attempts, max_attempts,
  reclaims, error, error_kind, panic_stack, timed_out, depends_on, item_index, child_run_id,
  scheduled_at, lease_expires_at, created_at, started_at, ended_at`;
