import type { BackoffPolicy } from '@cyclone/core';
import type { Executor } from '../../db/executor.js';
import type { StepRecord } from '../../schema/rows.js';
import { defineStatement } from '../../db/statement.js';
import { sqlConstant } from '../events/record-events.js';
import { claimColumns, ClaimedFromState, type ClaimChangeParams } from './claim-change.js';

/** What {@link claimSteps} claims, and for whom. */
export interface ClaimStepsParams extends ClaimChangeParams {
  kinds: readonly string[];
  limit: number;
  leaseMs: number;
}

/** A claimed step with its handler's inputs. */
export type ClaimedStepRow = Pick<
  StepRecord,
  | 'id'
  | 'run_id'
  | 'node'
  | 'node_type'
  | 'attempts'
  | 'max_attempts'
  | 'reclaims'
  | 'timeout_ms'
  | 'item'
  | 'item_index'
> & {
  kind: string;
  backoff: BackoffPolicy | null;
  claim_token: string;
  lease_expires_at: Date;
  workflow: string;
  input: unknown;
  deps: Record<string, unknown> | null;
  trace_context: Record<string, string> | null;
  queue_wait_ms: number;
};

/**
 * Claims up to `limit` available steps of the given kinds whose time has come, oldest first, with
 * `FOR UPDATE SKIP LOCKED` so concurrent workers never wait on each other nor take the same row.
 * Each claim gets a fresh token (the fence of every later write) and a lease; the handler's
 * inputs (run input, upstream outputs) come back in the same round trip. The claim's
 * `step_started` event is told by the row (`claimColumns`), not stored.
 */
const statement = defineStatement<ClaimStepsParams, ClaimedStepRow>(
  'claim-steps',
  (t, p) => `
WITH picked AS (
  -- One ordered walk of the claim index per kind (an index scan cannot order across the values
  -- of kind = ANY(...)), then the oldest of those overall. The state is a literal so the
  -- partial claim index (WHERE state = 'available') matches.
  SELECT s.id FROM unnest(${p.kinds}::text[]) AS k(kind)
  CROSS JOIN LATERAL (
    SELECT id, scheduled_at FROM ${t.steps}
    WHERE state = ${sqlConstant(ClaimedFromState)} AND kind = k.kind AND scheduled_at <= now()
    ORDER BY scheduled_at
    LIMIT ${p.limit}
    FOR UPDATE SKIP LOCKED
  ) s
  ORDER BY s.scheduled_at
  LIMIT ${p.limit}
), claimed AS (
  UPDATE ${t.steps} s
  SET state = ${p.toState}::text, ${claimColumns(t, p.workerId, p.leaseMs)}
  -- By primary key alone. The picked rows are locked and were rechecked as available under the
  -- lock, so they still are: that is the change's fence (ClaimedFromState). Naming the state here
  -- too lets the planner AND the whole claim index into a bitmap, a read as long as the queue;
  -- joining the picked ids instead lets it walk the claim index once per picked row.
  WHERE s.id = ANY(ARRAY(SELECT id FROM picked))
  RETURNING s.id, s.run_id, s.node, s.node_type, s.kind, s.attempts, s.max_attempts, s.reclaims,
            s.timeout_ms, s.backoff, s.claim_token, s.lease_expires_at, s.item, s.item_index,
            s.depends_on, s.scheduled_at
)
SELECT c.id, c.run_id, c.node, c.node_type, c.kind, c.attempts, c.max_attempts, c.reclaims,
       c.timeout_ms, c.backoff, c.claim_token, c.lease_expires_at, c.item, c.item_index,
       r.workflow, r.input, r.trace_context,
       -- How long the step waited, claimable, for a worker: on the database's clock.
       (extract(epoch FROM now() - c.scheduled_at) * 1000)::float8 AS queue_wait_ms,
       CASE WHEN cardinality(c.depends_on) = 0 THEN NULL ELSE (
         SELECT jsonb_object_agg(d.node, d.output) FROM ${t.steps} d
         WHERE d.run_id = c.run_id AND d.node = ANY(c.depends_on) AND d.item_index IS NULL
       ) END AS deps
FROM claimed c JOIN ${t.runs} r ON r.id = c.run_id
`,
);

/** Claims available steps of the given kinds (`available -> running` by `claim`). */
export function claimSteps(db: Executor, p: ClaimStepsParams): Promise<ClaimedStepRow[]> {
  return db.rows(statement, p);
}
