import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The sweep's bound. */
export interface FindReclaimLimitedParams {
  limit: number;
}

/** A step to discard with `reclaim_limit`. */
export interface ReclaimLimitedRow {
  id: string;
  run_id: string;
  claim_token: string;
  reclaims: number;
}

/**
 * The recovery sweep's second half: running steps whose lease expired although they were already
 * reclaimed `max_reclaims` times. Each is then discarded with error kind `reclaim_limit`.
 */
const statement = defineStatement<FindReclaimLimitedParams, ReclaimLimitedRow>(
  'find-reclaim-limited',
  (t, p) => `
SELECT s.id, s.run_id, s.claim_token, s.reclaims FROM ${t.stepsHot} s JOIN ${t.runsHot} r ON r.id = s.run_id
WHERE s.state = 'running' AND s.lease_expires_at < now()
  AND r.max_reclaims IS NOT NULL AND s.reclaims >= r.max_reclaims
ORDER BY s.lease_expires_at
LIMIT (SELECT ${p.limit}::int)
`,
);

/** Finds steps past their reclaim limit (see the statement). */
export function findReclaimLimited(
  db: SqlRunner,
  p: FindReclaimLimitedParams,
): Promise<ReclaimLimitedRow[]> {
  return db.rows(statement, p);
}
