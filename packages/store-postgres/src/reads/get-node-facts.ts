import { StepState, WorkflowNodeType, type RunState } from '@cyclone/core';
import type { StepRecord } from '../schema/rows.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { defineStatement } from '../db/statement.js';
import { limitHolds } from '../tables/limits/limit-holds.js';
import { stepsOfRun, workflowStepsOfRun } from '../db/steps-of-run.js';

/** The step to explain: by step id, or by node name and item index (null for a node step). */
export interface GetNodeFactsParams {
  runId: string;
  stepId: string | null;
  node: string | null;
  itemIndex: number | null;
  /** A worker whose registration is older than this counts as gone. */
  livenessMs: number;
  /** The most item indexes listed as unfinished. */
  listLimit: number;
  /** The node type whose items it counts itself, and the item states that count. */
  fanOutType: string;
  holdingStates: readonly string[];
  pendingState: string;
  completedState: string;
}

/** The constants {@link getNodeFacts} binds: what holds a place, what is done. */
export const NodeFactsConstants = {
  fanOutType: WorkflowNodeType.FanOut,
  // A paused item task keeps its place in the limit (the state reference's fan-out rows).
  holdingStates: [StepState.Available, StepState.Running, StepState.Paused],
  pendingState: StepState.Pending,
  completedState: StepState.Completed,
} as const;

/** What the statement returns: the run, and the step's facts when the step exists. */
export type NodeFactsRow = Pick<
  StepRecord,
  | 'node'
  | 'node_type'
  | 'kind'
  | 'state'
  | 'item_index'
  | 'attempts'
  | 'max_attempts'
  | 'reclaims'
  | 'error'
  | 'error_kind'
  | 'timed_out'
  | 'scheduled_at'
  | 'claimed_by'
  | 'lease_expires_at'
  | 'wait_signals'
  | 'wait_n'
  | 'wait_deadline_at'
  | 'child_run_id'
  | 'max_parallel'
  | 'concurrency_key'
> & {
  now: Date;
  run_state: RunState;
  paused_at: Date | null;
  /** Null when the run has no such step. */
  id: string | null;
  wait_gathered: number;
  upstream: { node: string; state: StepState }[];
  fan_out_node: string | null;
  items: number;
  holding: number[];
  items_pending: number;
  unfinished: number[];
  unfinished_count: number;
  child_state: RunState | null;
  live_workers: number;
  serving_workers: string[];
  /** The step's kind's flow limits and what they hold (null columns without limits). */
  concurrency_max: number | null;
  concurrency_per_key: boolean | null;
  concurrency_running: number | null;
  rate_limit: number | null;
  rate_period: string | null;
  rate_per_key: boolean | null;
  rate_starts: number | null;
  rate_until: Date | null;
  /** Whether the step is claimable and its kind under fair share; whose turn it is then. */
  fair_share: boolean;
  fair_turn_key: string | null;
  fair_turn_keyless: boolean | null;
};

/**
 * Everything `explainNode` decides from, in one statement so that it is one snapshot by one
 * clock: the run, the step, the states of its upstream nodes, its fan-out's items (the node's own
 * for a fan-out node, its parent's for an item task), its child run, and the live workers that
 * serve its kind. The item aggregates use the parent index. The step is left-joined, so an unknown
 * node still returns the run (and an unknown run returns nothing).
 */
const statement = defineStatement<GetNodeFactsParams, NodeFactsRow>(
  'get-node-facts',
  (t, p) => `
SELECT now() AS now, r.state AS run_state, r.paused_at, s.*,
  coalesce((SELECT jsonb_agg(jsonb_build_object('node', u.node, 'state', u.state)
                             ORDER BY array_position(s.depends_on, u.node))
            FROM ${t.steps} u
            WHERE ${workflowStepsOfRun('u', 'r.id')} AND u.item_index IS NULL AND u.node = ANY(s.depends_on)),
           '[]'::jsonb) AS upstream,
  f.node AS fan_out_node, f.max_parallel,
  coalesce(items.total, 0)::int AS items,
  coalesce(items.holding, '{}') AS holding,
  coalesce(items.pending, 0)::int AS items_pending,
  coalesce(items.unfinished, '{}') AS unfinished,
  coalesce(items.unfinished_count, 0)::int AS unfinished_count,
  (SELECT c.state FROM ${t.runs} c WHERE c.id = s.child_run_id) AS child_state,
  w.live AS live_workers, w.serving AS serving_workers,
  lim.concurrency_max, lim.concurrency_per_key, lim.concurrency_running, lim.rate_limit,
  lim.rate_period, lim.rate_per_key, lim.rate_starts, lim.rate_until,
  fs.kind IS NOT NULL AS fair_share, fs.cursor_key AS fair_turn_key,
  fs.cursor_keyless AS fair_turn_keyless
FROM ${t.runs} r
LEFT JOIN LATERAL (
  SELECT x.id, x.node, x.node_type, x.kind, x.state, x.item_index, x.parent_step_id, x.attempts,
         x.max_attempts, x.reclaims, x.error, x.error_kind, x.timed_out, x.scheduled_at,
         x.claimed_by, x.lease_expires_at, x.wait_signals, x.wait_n,
         coalesce(jsonb_array_length(x.wait_payloads), 0) AS wait_gathered, x.wait_deadline_at,
         x.child_run_id, x.depends_on, x.concurrency_key
  FROM ${t.steps} x
  WHERE ${stepsOfRun('x', 'r.id')}
    AND CASE WHEN ${p.stepId}::uuid IS NOT NULL THEN x.id = ${p.stepId}::uuid
             ELSE x.node = ${p.node}::text
                  AND x.item_index IS NOT DISTINCT FROM ${p.itemIndex}::int END
) s ON true
LEFT JOIN LATERAL (${limitHolds(t, 's')}) lim ON true
LEFT JOIN ${t.fairShares} fs ON fs.kind = s.kind AND s.state = 'available'
LEFT JOIN ${t.steps} f
  ON f.id = CASE WHEN s.node_type = ${p.fanOutType}::text THEN s.id ELSE s.parent_step_id END
LEFT JOIN LATERAL (
  SELECT count(*) AS total,
         array_agg(i.item_index ORDER BY i.item_index)
           FILTER (WHERE i.state = ANY(${p.holdingStates}::text[])) AS holding,
         count(*) FILTER (WHERE i.state = ${p.pendingState}::text) AS pending,
         (array_agg(i.item_index ORDER BY i.item_index)
           FILTER (WHERE i.state <> ${p.completedState}::text))[1:${p.listLimit}::int] AS unfinished,
         count(*) FILTER (WHERE i.state <> ${p.completedState}::text) AS unfinished_count
  FROM ${t.steps} i WHERE f.id IS NOT NULL AND i.parent_step_id = f.id
) items ON true
CROSS JOIN LATERAL (
  SELECT count(*)::int AS live,
         coalesce(array_agg(k.id ORDER BY k.id) FILTER (WHERE s.kind = ANY(k.kinds)), '{}') AS serving
  FROM ${t.workers} k
  WHERE k.last_seen_at > now() - ${p.livenessMs}::bigint * interval '1 millisecond'
) w
WHERE r.id = ${p.runId}::uuid
`,
);

/** The facts of one step (see the statement); undefined for an unknown run. */
export function getNodeFacts(
  db: SqlRunner,
  p: GetNodeFactsParams,
): Promise<NodeFactsRow | undefined> {
  return db.one(statement, p);
}
