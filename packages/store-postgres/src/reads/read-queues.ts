import type { SqlRunner } from '../db/sql-runner.js';
import { availableKindsSeen } from '../tables/steps/available-kinds.js';
import { defineStatement } from '../db/statement.js';
import { claimableKeysCount } from '../tables/fair-shares/claimable-keys.js';
import { oldestReadyStep } from '../tables/steps/oldest-ready.js';

/** How far {@link readQueues} looks and counts. */
export interface ReadQueuesParams {
  /** Most kinds reported. */
  kindLimit: number;
  /** Most steps counted per figure; a larger one reads as this many. */
  countLimit: number;
  /** The DLQ's reasons (error kinds of discarded steps), for the discarded index's ranges. */
  reasons: readonly string[];
  /** How far back discarded steps are counted, in milliseconds. */
  discardedWithinMs: number;
  /** A worker whose registration is older than this is not live (its kinds are not listed). */
  livenessMs: number;
}

/** One kind's queue. */
export interface QueueRow {
  kind: string;
  available: number;
  ready: number;
  running: number;
  waiting_on_limit: number;
  discarded_recently: number;
  oldest_ready_age_seconds: number | null;
  /** Whether the kind is under fair share; the two figures after it are null when not. */
  fair_share: boolean;
  /** Keys with claimable steps, counted over at most `countLimit` of them. */
  fair_keys: number | null;
  /** The key of the oldest ready step (null: the steps without a key, or none ready). */
  starved_key: string | null;
}

/**
 * Every kind an operator may care about (those with available steps, found by a skip scan of the
 * claim index; those live workers handle; limited ones and those under fair share; those with counts in the last hour) with
 * its queue: available and ready steps (the claim index), running ones (the running index), the
 * ready ones a concurrency cap holds back (as `listConcurrencyLimits` counts them), the ones
 * discarded within `discardedWithinMs` (the discarded index, one range per reason, read once for
 * all kinds) and the oldest ready step's age. For a kind under fair share, also the keys with
 * claimable steps and the key of the oldest ready step: the most-starved key, whose oldest ready
 * step is the oldest (decision 377). Every count stops at `countLimit`.
 */
const statement = defineStatement<ReadQueuesParams, QueueRow>(
  'read-queues',
  (t, p) => `
WITH RECURSIVE ${availableKindsSeen(t, p.kindLimit)}, discarded AS (
  SELECT d.kind, count(*)::int AS n FROM (
    SELECT s.kind FROM ${t.stepsHot} s
    WHERE s.state = 'discarded' AND s.error_kind = ANY(${p.reasons}::text[])
      AND s.ended_at > now() - ${p.discardedWithinMs}::bigint * interval '1 millisecond'
    LIMIT ${p.countLimit}) d
  WHERE d.kind IS NOT NULL
  GROUP BY d.kind
), kinds AS (
  SELECT kind FROM (
    SELECT kind FROM seen
    UNION SELECT unnest(w.kinds) FROM ${t.workers} w
      WHERE w.last_seen_at > now() - ${p.livenessMs}::bigint * interval '1 millisecond'
    UNION SELECT kind FROM ${t.limits}
    UNION SELECT kind FROM ${t.fairShares}
    UNION SELECT kind FROM discarded
    UNION SELECT DISTINCT kind FROM ${t.statsMinutes}
      WHERE minute >= date_trunc('minute', now()) - interval '1 hour'
  ) found ORDER BY kind LIMIT ${p.kindLimit}
)
SELECT k.kind,
  (SELECT count(*) FROM (
     SELECT 1 FROM ${t.stepsHot} s WHERE s.state = 'available' AND s.kind = k.kind
     LIMIT ${p.countLimit}) c)::int AS available,
  (SELECT count(*) FROM (
     SELECT 1 FROM ${t.stepsHot} s
     WHERE s.state = 'available' AND s.kind = k.kind AND s.scheduled_at <= now()
     LIMIT ${p.countLimit}) c)::int AS ready,
  (SELECT count(*) FROM (
     SELECT 1 FROM ${t.stepsHot} s WHERE s.state = 'running' AND s.kind = k.kind
     LIMIT ${p.countLimit}) c)::int AS running,
  CASE WHEN l.concurrency_max IS NULL THEN 0 ELSE (
    SELECT coalesce(sum(greatest(0, d.n - greatest(0, l.concurrency_max - coalesce(u.n, 0)))), 0)::int
    FROM (SELECT CASE WHEN l.concurrency_per_key THEN a.concurrency_key END AS grp,
                 count(*)::int AS n
          FROM (SELECT s.concurrency_key FROM ${t.stepsHot} s
                WHERE s.state = 'available' AND s.kind = k.kind AND s.scheduled_at <= now()
                LIMIT ${p.countLimit}) a
          GROUP BY 1) d
    LEFT JOIN (SELECT CASE WHEN l.concurrency_per_key THEN s.concurrency_key END AS grp,
                      count(*)::int AS n
               FROM ${t.stepsHot} s WHERE s.state = 'running' AND s.kind = k.kind
               GROUP BY 1) u ON u.grp IS NOT DISTINCT FROM d.grp
  ) END AS waiting_on_limit,
  coalesce(x.n, 0) AS discarded_recently,
  extract(epoch FROM now() - o.scheduled_at)::float8 AS oldest_ready_age_seconds,
  fs.kind IS NOT NULL AS fair_share,
  CASE WHEN fs.kind IS NOT NULL
       THEN ${claimableKeysCount(t, 'k.kind', p.countLimit)} END AS fair_keys,
  CASE WHEN fs.kind IS NOT NULL THEN o.concurrency_key END AS starved_key
FROM kinds k
LEFT JOIN ${t.limits} l ON l.kind = k.kind
LEFT JOIN ${t.fairShares} fs ON fs.kind = k.kind
LEFT JOIN discarded x ON x.kind = k.kind
LEFT JOIN LATERAL ${oldestReadyStep(t, 'k.kind')} o ON true
ORDER BY k.kind
`,
);

/** Reads each kind's queue (see the statement). */
export function readQueues(db: SqlRunner, p: ReadQueuesParams): Promise<QueueRow[]> {
  return db.rows(statement, p);
}
