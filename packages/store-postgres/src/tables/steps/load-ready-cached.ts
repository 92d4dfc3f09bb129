import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { stepsOfRun, workflowStepsOfRun } from '../../db/steps-of-run.js';

/** The run whose ready cached tasks to read. */
export interface LoadReadyCachedParams {
  runId: string;
  pendingState: string;
}

/** A cached task node whose dependencies have completed, with what its cache key is made of. */
export interface ReadyCachedRow {
  id: string;
  node: string;
  kind: string;
  claim_token: string | null;
  /** The run input. */
  input: unknown;
  /** The node's `cache` object from the run's definition (`{ ttlMs, key? }`). */
  cache: { ttlMs: number; key?: string } | null;
  /** The outputs of its dependencies, by node name. */
  deps: Record<string, unknown>;
}

/**
 * A run's cached task nodes that are ready (pending, every dependency completed), each with the
 * run input, its node's cache settings and its dependencies' outputs: what its cache key is
 * computed from. Read under the run's lock, so none of it changes before the lookup.
 */
const statement = defineStatement<LoadReadyCachedParams, ReadyCachedRow>(
  'load-ready-cached',
  (t, p) => `
SELECT s.id, s.node, s.kind, s.claim_token, r.input,
       (SELECT n->'cache' FROM jsonb_array_elements(w.definition->'nodes') n
        WHERE n->>'name' = s.node) AS cache,
       (SELECT coalesce(jsonb_object_agg(d.node, d.output), '{}'::jsonb) FROM ${t.stepsHot} d
        WHERE ${workflowStepsOfRun('d', 's.run_id')} AND d.item_index IS NULL AND d.node = ANY(s.depends_on)) AS deps
FROM ${t.stepsHot} s
JOIN ${t.runsHot} r ON r.id = s.run_id
JOIN ${t.workflows} w ON w.hash = r.definition_hash
WHERE ${stepsOfRun('s', `(SELECT ${p.runId}::uuid)`)} AND s.item_index IS NULL AND s.state = (SELECT ${p.pendingState}::text)
  AND s.cache_ttl_ms IS NOT NULL AND s.deps_remaining = 0
ORDER BY s.id
`,
);

/** The run's ready cached task nodes (see the statement). */
export function loadReadyCached(
  db: SqlRunner,
  p: LoadReadyCachedParams,
): Promise<ReadyCachedRow[]> {
  return db.rows(statement, p);
}
