import type { SqlRunner } from '../db/sql-runner.js';
import { defineStatement } from '../db/statement.js';

/** How far {@link readLimitMetrics} reads. */
export interface ReadLimitMetricsParams {
  /** Most limited kinds reported (by kind name). */
  kindLimit: number;
  /** Most rows read per kind and count: ready steps, running steps, starts in the window. */
  countLimit: number;
}

/** One limited kind: what each of its limits holds back now, and how full each is. */
export interface LimitMetricsRow {
  kind: string;
  concurrency_max: number | null;
  /** Ready steps the concurrency cap holds back (per key under a per-key cap). */
  concurrency_waiting: number;
  /** Running steps of the kind, or of its busiest key under a per-key cap. */
  concurrency_busiest: number;
  rate_limit: number | null;
  /** Ready steps the rate limit holds back (per key under a per-key limit). */
  rate_waiting: number;
  /** Starts in the window of the kind, or of its busiest key under a per-key limit. */
  rate_busiest: number;
}

/**
 * The held-back and in-use counts of one limit, grouped as the limit counts (by concurrency key
 * under `perKey`, keyless steps as one group, else the kind as one group): per group, the ready
 * steps beyond the places the group's `used` rows leave under `max`, summed; and the largest
 * group's `used`. `used` is a query of `(key)` rows. Each branch sits behind a condition on the
 * limit row alone, which the planner evaluates once, so a kind without this limit reads nothing
 * for it, and a limit not per key reads its ready steps from the claim index alone (an index-only
 * scan, no key). The ready steps are read in the claim index's order, so that index serves the
 * read (and an empty kind costs one probe) rather than a scan of the table.
 */
function heldBack(
  steps: string,
  kind: string,
  perKey: string,
  max: string,
  used: string,
  countLimit: string,
): string {
  const ready = (column: string) => `
          SELECT ${column} AS key FROM ${steps} s
          WHERE s.state = 'available' AND s.kind = ${kind} AND s.scheduled_at <= now()
          ORDER BY s.priority DESC NULLS LAST, s.scheduled_at
          LIMIT ${countLimit}`;
  return `
    SELECT coalesce(sum(greatest(0, g.ready - greatest(0, ${max} - g.used))), 0)::int AS waiting,
           coalesce(max(g.used), 0)::int AS busiest
    FROM (
      SELECT x.grp, sum(x.ready) AS ready, sum(x.used) AS used FROM (
        SELECT NULL::text AS grp, 1 AS ready, 0 AS used FROM (${ready('NULL::text')}) a
        WHERE ${max} IS NOT NULL AND NOT ${perKey}
        UNION ALL
        SELECT a.key, 1, 0 FROM (${ready('s.concurrency_key')}) a
        WHERE ${max} IS NOT NULL AND ${perKey}
        UNION ALL
        SELECT CASE WHEN ${perKey} THEN u.key END, 0, 1 FROM (${used} LIMIT ${countLimit}) u
        WHERE ${max} IS NOT NULL
      ) x GROUP BY x.grp
    ) g`;
}

/**
 * Every limited kind (up to `kindLimit`, by name) with what its concurrency cap and its rate
 * limit hold back now and the use of the fullest group of each: the running steps (by the index
 * of running steps, `(kind, concurrency_key)`), the starts within the rate window (by the index
 * `(kind, key, at)` of `cyclone_rate_starts`) and the ready steps (by the claim index), each read
 * stopping at `countLimit` rows.
 */
const statement = defineStatement<ReadLimitMetricsParams, LimitMetricsRow>(
  'read-limit-metrics',
  (t, p) => `
SELECT l.kind, l.concurrency_max, c.waiting AS concurrency_waiting,
       c.busiest AS concurrency_busiest, l.rate_limit, r.waiting AS rate_waiting,
       r.busiest AS rate_busiest
FROM (SELECT * FROM ${t.limits} ORDER BY kind LIMIT ${p.kindLimit}) l
CROSS JOIN LATERAL (${heldBack(
    t.steps,
    'l.kind',
    'l.concurrency_per_key',
    'l.concurrency_max',
    `SELECT s.concurrency_key AS key FROM ${t.stepsHot} s WHERE s.state = 'running' AND s.kind = l.kind`,
    p.countLimit,
  )}) c
CROSS JOIN LATERAL (${heldBack(
    t.steps,
    'l.kind',
    'l.rate_per_key',
    'l.rate_limit',
    `SELECT r.key FROM ${t.rateStarts} r
     WHERE r.kind = l.kind AND r.at > now() - l.rate_period_ms * interval '1 millisecond'`,
    p.countLimit,
  )}) r
ORDER BY l.kind
`,
);

/** Reads what every limited kind's limits hold back now (see the statement). */
export function readLimitMetrics(
  db: SqlRunner,
  p: ReadLimitMetricsParams,
): Promise<LimitMetricsRow[]> {
  return db.rows(statement, p);
}
