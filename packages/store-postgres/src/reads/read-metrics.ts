import type { SqlRunner } from '../db/sql-runner.js';
import { availableKindsSeen } from '../tables/steps/available-kinds.js';
import { defineStatement } from '../db/statement.js';
import { claimableKeysCount } from '../tables/fair-shares/claimable-keys.js';
import { oldestReadyAt } from '../tables/steps/oldest-ready.js';

/** What {@link readMetrics} counts. */
export interface ReadMetricsParams {
  /** Kinds always reported. */
  kinds: readonly string[];
  /** Whether to add the kinds workers registered and those with available steps, up to `kindLimit`. */
  discoverKinds: boolean;
  kindLimit: number;
  countLimit: number;
  reasons: readonly string[];
  /** Whether to count runs by state. */
  runs: boolean;
}

/** One gauge value: a kind's queue (`queue`), a DLQ reason (`dlq`) or a run state (`run`). */
export interface MetricsRow {
  series: 'queue' | 'dlq' | 'run';
  label: string;
  count: number;
  /** `queue` only: the ready steps among `count` available ones. */
  ready: number | null;
  /** `queue` only. */
  oldest_ready_age_seconds: number | null;
  /** `queue` only: keys with claimable steps of a kind under fair share; null when not under it. */
  fair_keys: number | null;
}

/**
 * Every step count walks a partial index and stops at `countLimit` (a `LIMIT` inside the count),
 * so a backlog of millions costs no more than `countLimit` entries a series. Discovered kinds are
 * the ones registered workers handle and those found by a skip scan of the claim index (one index
 * probe per distinct kind), `kindLimit` in all; the discovery and the runs count sit behind their
 * flags, which the planner evaluates once, so a worker's scrape (its own kinds, no runs) runs
 * neither. A kind under fair share (one probe of its primary key tells) also has its keys with
 * claimable steps counted, over at most `countLimit` of them.
 */
const statement = defineStatement<ReadMetricsParams, MetricsRow>(
  'read-metrics',
  (t, p) => `
WITH RECURSIVE ${availableKindsSeen(t, p.kindLimit)}, kinds AS (
  SELECT unnest(${p.kinds}::text[]) AS kind
  UNION
  (SELECT kind FROM (
     SELECT kind FROM seen UNION SELECT unnest(w.kinds) FROM ${t.workers} w
   ) found WHERE ${p.discoverKinds}::boolean ORDER BY kind LIMIT ${p.kindLimit})
)
SELECT 'queue' AS series, k.kind AS label,
  (SELECT count(*) FROM (
     SELECT 1 FROM ${t.stepsHot} s WHERE s.state = 'available' AND s.kind = k.kind
     LIMIT ${p.countLimit}) c)::int AS count,
  (SELECT count(*) FROM (
     SELECT 1 FROM ${t.stepsHot} s
     WHERE s.state = 'available' AND s.kind = k.kind AND s.scheduled_at <= now()
     LIMIT ${p.countLimit}) c)::int AS ready,
  extract(epoch FROM now() - ${oldestReadyAt(t, 'k.kind')})::float8 AS oldest_ready_age_seconds,
  CASE WHEN EXISTS (SELECT 1 FROM ${t.fairShares} f WHERE f.kind = k.kind)
       THEN ${claimableKeysCount(t, 'k.kind', p.countLimit)} END AS fair_keys
FROM kinds k
UNION ALL
SELECT 'dlq', r.reason,
  (SELECT count(*) FROM (
     SELECT 1 FROM ${t.steps} s WHERE s.state = 'discarded' AND s.error_kind = r.reason
     LIMIT ${p.countLimit}) c)::int,
  NULL, NULL, NULL
FROM unnest(${p.reasons}::text[]) AS r(reason)
UNION ALL
SELECT 'run', state, count(*)::int, NULL, NULL, NULL
FROM ${t.runs} WHERE ${p.runs}::boolean GROUP BY state
`,
);

/** Reads the queue gauges (per kind), the DLQ gauges (per reason) and runs by state at once. */
export function readMetrics(db: SqlRunner, p: ReadMetricsParams): Promise<MetricsRow[]> {
  return db.rows(statement, p);
}
