import type { Executor } from '../db/executor.js';
import { defineStatement } from '../db/statement.js';

/** What {@link readQueueMetrics} counts. */
export interface ReadQueueMetricsParams {
  /** The kinds to report, or null for the kinds that have available steps. */
  kinds: readonly string[] | null;
  kindLimit: number;
  countLimit: number;
  reasons: readonly string[];
}

/** One gauge value: a kind's queue (`queue`) or a DLQ reason (`dlq`). */
export interface QueueMetricsRow {
  series: 'queue' | 'dlq';
  label: string;
  count: number;
  oldest_age_seconds: number | null;
}

/**
 * Every count walks a partial index and stops at `countLimit` (a `LIMIT` inside the count), so a
 * backlog of millions costs no more than `countLimit` entries a series. Without given kinds, the
 * kinds are found by a skip scan of the claim index (one index probe per distinct kind, up to
 * `kindLimit`); `coalesce` evaluates that subquery only when no kinds were given.
 */
const statement = defineStatement<ReadQueueMetricsParams, QueueMetricsRow>(
  'read-queue-metrics',
  (t, p) => `
WITH RECURSIVE seen(kind, n) AS (
  (SELECT kind, 1 FROM ${t.steps} WHERE state = 'available' AND kind IS NOT NULL
   ORDER BY kind LIMIT 1)
  UNION ALL
  SELECT next.kind, seen.n + 1 FROM seen CROSS JOIN LATERAL (
    SELECT s.kind FROM ${t.steps} s WHERE s.state = 'available' AND s.kind > seen.kind
    ORDER BY s.kind LIMIT 1
  ) next
  WHERE seen.n < ${p.kindLimit}
), kinds AS (
  SELECT DISTINCT kind
  FROM unnest(coalesce(${p.kinds}::text[], ARRAY(SELECT kind FROM seen))) AS k(kind)
)
SELECT 'queue' AS series, k.kind AS label,
  (SELECT count(*) FROM (
     SELECT 1 FROM ${t.steps} s
     WHERE s.state = 'available' AND s.kind = k.kind AND s.scheduled_at <= now()
     LIMIT ${p.countLimit}) c)::int AS count,
  (SELECT extract(epoch FROM now() - min(s.scheduled_at)) FROM ${t.steps} s
   WHERE s.state = 'available' AND s.kind = k.kind AND s.scheduled_at <= now())::float8
    AS oldest_age_seconds
FROM kinds k
UNION ALL
SELECT 'dlq', r.reason,
  (SELECT count(*) FROM (
     SELECT 1 FROM ${t.steps} s WHERE s.state = 'discarded' AND s.error_kind = r.reason
     LIMIT ${p.countLimit}) c)::int,
  NULL
FROM unnest(${p.reasons}::text[]) AS r(reason)
`,
);

/** Reads the queue gauges (per kind) and the DLQ gauges (per reason) in one round trip. */
export function readQueueMetrics(
  db: Executor,
  p: ReadQueueMetricsParams,
): Promise<QueueMetricsRow[]> {
  return db.rows(statement, p);
}
