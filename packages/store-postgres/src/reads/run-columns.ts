import type { RunRecord, StepRecord } from '../schema/rows.js';
import type { Tables } from '../db/tables.js';
import { stepsOfRun } from '../db/steps-of-run.js';

/**
 * The columns every run read returns (from `runs` aliased `r`), in the shape `toRunStatus` maps.
 * `started_at` is stamped when a step of the run first ends; until then it is read from the
 * run's earliest-started step, which keeps the claim path free of writes to the run row.
 */
export function runColumns(t: Tables): string {
  return `r.id, r.workflow, r.state, r.error_kind, r.error, r.failed_node, r.parent_run_id,
  r.parent_step_id, r.idempotency_key, r.deadline_at, r.failure_count, r.reclaim_count, r.created_at,
  coalesce(r.started_at, (SELECT min(s.started_at) FROM ${t.steps} s WHERE ${stepsOfRun('s', 'r.id')})) AS started_at,
  r.ended_at`;
}

/** A run as the run reads return it. */
export type RunReadRow = Pick<
  RunRecord,
  | 'id'
  | 'workflow'
  | 'state'
  | 'error_kind'
  | 'error'
  | 'failed_node'
  | 'parent_run_id'
  | 'parent_step_id'
  | 'idempotency_key'
  | 'deadline_at'
  | 'failure_count'
  | 'reclaim_count'
  | 'created_at'
  | 'started_at'
  | 'ended_at'
>;

/** The columns every step read returns, in the shape `toStepStatus` maps (output excluded). */
export const STEP_COLUMNS = `id, run_id, node, node_type, kind, state, attempts, max_attempts,
  reclaims, error, error_kind, panic_stack, timed_out, cached, depends_on, item_index,
  max_parallel, child_run_id,
  scheduled_at, lease_expires_at, created_at, started_at, ended_at, wait_signals, wait_n,
  wait_deadline_at, coalesce(jsonb_array_length(wait_payloads), 0) AS wait_gathered,
  -- The time a wait has left, by the database clock: to its timer, or to its max wait.
  (extract(epoch FROM CASE state WHEN 'waiting_timer' THEN scheduled_at
                                 WHEN 'waiting_signal' THEN wait_deadline_at
                                 WHEN 'waiting_child' THEN wait_deadline_at END - now())
   * 1000)::bigint AS wait_remaining_ms`;

/** A step as the step reads return it. */
export type StepReadRow = Pick<
  StepRecord,
  | 'id'
  | 'run_id'
  | 'node'
  | 'node_type'
  | 'kind'
  | 'state'
  | 'attempts'
  | 'max_attempts'
  | 'reclaims'
  | 'error'
  | 'error_kind'
  | 'panic_stack'
  | 'timed_out'
  | 'cached'
  | 'depends_on'
  | 'item_index'
  | 'max_parallel'
  | 'child_run_id'
  | 'scheduled_at'
  | 'lease_expires_at'
  | 'created_at'
  | 'started_at'
  | 'ended_at'
  | 'wait_signals'
  | 'wait_n'
  | 'wait_deadline_at'
> & {
  output?: unknown;
  wait_gathered: number;
  wait_remaining_ms: string | null;
  /** Held back by its kind's flow limits now (read where limits are looked at). */
  awaiting_resource?: boolean;
};
