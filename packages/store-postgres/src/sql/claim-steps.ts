import { defineQuery } from '../query.js';

/**
 * Claims up to `$2` available steps of the given kinds whose time has come, oldest first, with
 * `FOR UPDATE SKIP LOCKED` so concurrent workers never wait on each other nor take the same row.
 * Each claim gets a fresh token (the fence of every later write) and a lease; the handler's
 * inputs (run input, upstream outputs) come back in the same round trip.
 *
 * $1 kinds, $2 limit, $3 worker id, $4 lease ms, $5 allowed from-states (core: claim -> running).
 */
export const claimSteps = defineQuery(
  'claim-steps',
  (t) => `
WITH picked AS (
  -- One ordered walk of the claim index per kind (an index scan cannot order across the values
  -- of kind = ANY(...)), then the oldest of those overall.
  SELECT s.id FROM unnest($1::text[]) AS k(kind)
  CROSS JOIN LATERAL (
    SELECT id, scheduled_at FROM ${t.steps}
    WHERE state = 'available' AND kind = k.kind AND scheduled_at <= now()
    ORDER BY scheduled_at
    LIMIT $2
    FOR UPDATE SKIP LOCKED
  ) s
  ORDER BY s.scheduled_at
  LIMIT $2
), claimed AS (
  UPDATE ${t.steps} s
  SET state = 'running', claim_token = gen_random_uuid(), claimed_by = $3,
      lease_expires_at = now() + $4::bigint * interval '1 millisecond', started_at = now()
  -- By primary key: joining the picked ids instead lets the planner, whose statistics see few
  -- available rows in a big table, walk the claim index once per picked row.
  WHERE s.id = ANY(ARRAY(SELECT id FROM picked)) AND s.state = ANY($5::text[])
  RETURNING s.id, s.run_id, s.node, s.node_type, s.kind, s.attempts, s.max_attempts, s.reclaims,
            s.timeout_ms, s.backoff, s.claim_token, s.lease_expires_at, s.item, s.item_index,
            s.depends_on
), events AS (
  INSERT INTO ${t.events} (run_id, step_id, node, type, from_state, to_state, detail)
  SELECT run_id, id, node, 'step_started', 'available', 'running',
         jsonb_build_object('attempt', attempts + 1, 'worker', $3::text)
  FROM claimed
)
SELECT c.id, c.run_id, c.node, c.node_type, c.kind, c.attempts, c.max_attempts, c.reclaims,
       c.timeout_ms, c.backoff, c.claim_token, c.lease_expires_at, c.item, c.item_index,
       r.workflow, r.input,
       CASE WHEN cardinality(c.depends_on) = 0 THEN NULL ELSE (
         SELECT jsonb_object_agg(d.node, d.output) FROM ${t.steps} d
         WHERE d.run_id = c.run_id AND d.node = ANY(c.depends_on) AND d.item_index IS NULL
       ) END AS deps
FROM claimed c JOIN ${t.runs} r ON r.id = c.run_id
`,
);
