import type { ErrorKind, RunState, StepState } from '@cyclone/core';
import type { Executor } from '../db/executor.js';
import { defineStatement } from '../db/statement.js';

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
}

/** What the statement returns: the run, and the step's facts when the step exists. */
export interface NodeFactsRow {
  now: Date;
  run_state: RunState;
  paused_at: Date | null;
  id: string | null;
  node: string;
  node_type: string;
  kind: string | null;
  state: StepState;
  item_index: number | null;
  attempts: number;
  max_attempts: number;
  reclaims: number;
  error: string | null;
  error_kind: ErrorKind | null;
  timed_out: boolean;
  scheduled_at: Date;
  claimed_by: string | null;
  lease_expires_at: Date | null;
  wait_signals: string[] | null;
  wait_n: number | null;
  wait_gathered: number;
  wait_deadline_at: Date | null;
  child_run_id: string | null;
  upstream: { node: string; state: StepState }[];
  fan_out_node: string | null;
  max_parallel: number | null;
  items: number;
  holding: number[];
  items_pending: number;
  unfinished: number[];
  unfinished_count: number;
  child_state: RunState | null;
  live_workers: number;
  serving_workers: string[];
}

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
            WHERE u.run_id = r.id AND u.item_index IS NULL AND u.node = ANY(s.depends_on)),
           '[]'::jsonb) AS upstream,
  f.node AS fan_out_node, f.max_parallel,
  coalesce(items.total, 0)::int AS items,
  coalesce(items.holding, '{}') AS holding,
  coalesce(items.pending, 0)::int AS items_pending,
  coalesce(items.unfinished, '{}') AS unfinished,
  coalesce(items.unfinished_count, 0)::int AS unfinished_count,
  (SELECT c.state FROM ${t.runs} c WHERE c.id = s.child_run_id) AS child_state,
  w.live AS live_workers, w.serving AS serving_workers
FROM ${t.runs} r
LEFT JOIN LATERAL (
  SELECT x.id, x.node, x.node_type, x.kind, x.state, x.item_index, x.parent_step_id, x.attempts,
         x.max_attempts, x.reclaims, x.error, x.error_kind, x.timed_out, x.scheduled_at,
         x.claimed_by, x.lease_expires_at, x.wait_signals, x.wait_n,
         coalesce(jsonb_array_length(x.wait_payloads), 0) AS wait_gathered, x.wait_deadline_at,
         x.child_run_id, x.depends_on
  FROM ${t.steps} x
  WHERE x.run_id = r.id
    AND CASE WHEN ${p.stepId}::uuid IS NOT NULL THEN x.id = ${p.stepId}::uuid
             ELSE x.node = ${p.node}::text
                  AND x.item_index IS NOT DISTINCT FROM ${p.itemIndex}::int END
) s ON true
LEFT JOIN ${t.steps} f
  ON f.id = CASE WHEN s.node_type = 'fan_out' THEN s.id ELSE s.parent_step_id END
LEFT JOIN LATERAL (
  SELECT count(*) AS total,
         array_agg(i.item_index ORDER BY i.item_index)
           FILTER (WHERE i.state IN ('available', 'running', 'paused')) AS holding,
         count(*) FILTER (WHERE i.state = 'pending') AS pending,
         (array_agg(i.item_index ORDER BY i.item_index)
           FILTER (WHERE i.state NOT IN ('completed')))[1:${p.listLimit}::int] AS unfinished,
         count(*) FILTER (WHERE i.state <> 'completed') AS unfinished_count
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
  db: Executor,
  p: GetNodeFactsParams,
): Promise<NodeFactsRow | undefined> {
  return db.one(statement, p);
}
