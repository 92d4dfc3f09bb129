import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The run whose ancestors to count, and where to stop counting. */
export interface CountAncestorsParams {
  runId: string;
  limit: number;
}

/**
 * How many runs stand above a run through `parent_run_id` (0 for a top-level run), counted up to
 * `limit`: a child node's child run nests one level deeper than its parent.
 */
const statement = defineStatement<CountAncestorsParams, { depth: number }>(
  'count-ancestors',
  (t, p) => `
WITH RECURSIVE up(id, depth) AS (
  SELECT parent_run_id, 1 FROM ${t.runsHot} WHERE id = (SELECT ${p.runId}::uuid) AND parent_run_id IS NOT NULL
  UNION ALL
  SELECT r.parent_run_id, up.depth + 1 FROM ${t.runsHot} r JOIN up ON r.id = up.id
  WHERE r.parent_run_id IS NOT NULL AND up.depth < (SELECT ${p.limit}::int)
)
SELECT coalesce(max(depth), 0)::int AS depth FROM up
`,
);

/** Counts a run's ancestors, at most `limit` (see the statement). */
export async function countAncestors(db: SqlRunner, p: CountAncestorsParams): Promise<number> {
  return (await db.one(statement, p))?.depth ?? 0;
}
