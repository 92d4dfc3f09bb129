import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** Which minutes to read. */
export interface ReadStatsMinutesParams {
  /** The window's length: this many milliseconds of whole minutes, the current one the last. */
  windowMs: number;
  /** Only this kind; null for all kinds added up. */
  kind: string | null;
}

/** One minute's counts, all kinds (or the one asked) added up. */
export interface StatsMinuteRow {
  minute: Date;
  completed: number;
  failed: number;
  /** Null for a minute without rows. */
  wait_buckets: number[] | null;
}

/**
 * Every minute of the window, oldest first, the current (partial) one last: `windowMs` of whole
 * minutes, zeros where nothing was flushed, the kinds' rows merged (histograms bucket by bucket).
 * Reads only the window's rows, by the primary key's leading `minute`.
 */
const statement = defineStatement<ReadStatsMinutesParams, StatsMinuteRow>(
  'read-stats-minutes',
  (t, p) => `
WITH bounds AS (
  SELECT date_trunc('minute', now()) AS last,
         date_trunc('minute', now())
           - greatest(${p.windowMs}::bigint - 60000, 0) * interval '1 millisecond' AS first
), picked AS (
  SELECT m.* FROM ${t.statsMinutes} m, bounds
  WHERE m.minute >= bounds.first
    AND (${p.kind}::text IS NULL OR m.kind = ${p.kind}::text)
), minutes AS (
  SELECT generate_series(bounds.first, bounds.last, interval '1 minute') AS minute FROM bounds
)
SELECT mn.minute, coalesce(sum(m.completed), 0)::float8 AS completed,
  coalesce(sum(m.failed), 0)::float8 AS failed,
  (SELECT array_agg(b.n ORDER BY b.i) FROM (
     SELECT u.i, sum(u.n)::float8 AS n
     FROM picked x, unnest(x.wait_buckets) WITH ORDINALITY AS u(n, i)
     WHERE x.minute = mn.minute GROUP BY u.i) b) AS wait_buckets
FROM minutes mn LEFT JOIN picked m ON m.minute = mn.minute
GROUP BY mn.minute
ORDER BY mn.minute
`,
);

/** Reads the window's minutes (see the statement). */
export function readStatsMinutes(
  db: SqlRunner,
  p: ReadStatsMinutesParams,
): Promise<StatsMinuteRow[]> {
  return db.rows(statement, p);
}
