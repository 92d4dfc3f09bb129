import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** Which runs the deadline scanner looks at. */
export interface FindExpiredRunsParams {
  runningState: string;
  limit: number;
}

/**
 * Running runs past their `deadline_at` by the database clock, earliest deadline first, at most
 * `limit`. Paused runs are left alone: no scanner moves a paused run's steps.
 */
const statement = defineStatement<FindExpiredRunsParams, { id: string }>(
  'find-expired-runs',
  (t, p) => `
SELECT id FROM ${t.runsHot}
WHERE deadline_at IS NOT NULL AND deadline_at <= now() AND state = (SELECT ${p.runningState}::text)
ORDER BY deadline_at
LIMIT (SELECT ${p.limit}::int)
`,
);

/** Finds running runs past their deadline (see the statement). */
export function findExpiredRuns(
  db: SqlRunner,
  p: FindExpiredRunsParams,
): Promise<{ id: string }[]> {
  return db.rows(statement, p);
}
