import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** How far the list counts a kind's waiting steps. */
export interface ListLimitsParams {
  /** Most claimable steps of a kind counted; a larger queue reads as this many. */
  countLimit: number;
}

/** A limited kind with its limits and what they hold now. */
export interface LimitRow {
  kind: string;
  concurrency_max: number | null;
  concurrency_per_key: boolean;
  rate_limit: number | null;
  rate_period_ms: string | null;
  rate_period: string | null;
  rate_per_key: boolean;
  /** Steps of the kind running now. */
  running: number;
  /** Claimable steps of the kind that its concurrency cap holds back now. */
  waiting: number;
}

/**
 * Every limited kind, by kind, with its steps running now and the claimable steps its concurrency
 * cap holds back: under a per-key cap, per key, the claimable steps beyond the places the key's
 * running steps leave; under a kind's cap, those beyond the places left to the kind. Counted by
 * the indexes of running and claimable steps, at most `countLimit` claimable steps a kind. The
 * claimable steps are read in the claim index's order (the first to be claimed), which is what
 * makes the planner walk that index rather than scan the table for each kind.
 */
const statement = defineStatement<ListLimitsParams, LimitRow>(
  'list-limits',
  (t, p) => `
SELECT l.kind, l.concurrency_max, l.concurrency_per_key, l.rate_limit, l.rate_period_ms::text,
       l.rate_period, l.rate_per_key,
       (SELECT count(*)::int FROM ${t.stepsHot} s WHERE s.state = 'running' AND s.kind = l.kind)
         AS running,
       CASE WHEN l.concurrency_max IS NULL THEN 0 ELSE (
         SELECT coalesce(sum(greatest(0, d.n - greatest(0, l.concurrency_max - coalesce(u.n, 0)))), 0)::int
         FROM (SELECT CASE WHEN l.concurrency_per_key THEN a.concurrency_key END AS grp,
                      count(*)::int AS n
               FROM (SELECT s.concurrency_key FROM ${t.stepsHot} s
                     WHERE s.state = 'available' AND s.kind = l.kind AND s.scheduled_at <= now()
                     ORDER BY s.priority DESC NULLS LAST, s.scheduled_at
                     LIMIT ${p.countLimit}) a
               GROUP BY 1) d
         LEFT JOIN (SELECT CASE WHEN l.concurrency_per_key THEN s.concurrency_key END AS grp,
                           count(*)::int AS n
                    FROM ${t.stepsHot} s WHERE s.state = 'running' AND s.kind = l.kind
                    GROUP BY 1) u ON u.grp IS NOT DISTINCT FROM d.grp
       ) END AS waiting
FROM ${t.limits} l
ORDER BY l.kind
`,
);

/** Reads every limited kind (see the statement). */
export function listLimits(db: SqlRunner, p: ListLimitsParams): Promise<LimitRow[]> {
  return db.rows(statement, p);
}
