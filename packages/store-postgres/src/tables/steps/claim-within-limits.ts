import type { Tables } from '../../db/tables.js';
import { sqlConstant } from '../events/record-events.js';
import { ClaimedColumns, ClaimedFromState, claimColumns } from './claim-parts.js';

const available = sqlConstant(ClaimedFromState);

/** Where a claim of one kind under its limits (limited or fair) takes its steps from. */
export interface ClaimWithinLimitsSource {
  /** The placeholders of the claimant, the new state and the lease. */
  readonly p: { readonly toState: string; readonly workerId: string; readonly leaseMs: string };
  /** The CTE of the steps' ids to claim (`id`). */
  readonly allowed: string;
  /**
   * A FROM item, aliased `l`, of one row with the kind (`kind`) and its rate limit
   * (`rate_limit`, `rate_period_ms`, `rate_per_key`), all but `kind` null without one.
   */
  readonly limits: string;
}

/**
 * The CTEs that end a claim of one kind within its limits, shared by the limited claim and the
 * fair claim: `claimed`, the update of the allowed steps, fenced; `recorded`, each start of a
 * rate-limited kind (by key under a per-key rate limit); `purged`, the starts older than the
 * period (all of the kind's, once it has no rate limit); and `commit_mode`, one row, which the
 * statement must read (a CTE that is not read does not run).
 *
 * `commit_mode` lets the transaction commit without waiting for its WAL to reach the disk when
 * the kind has no rate limit, as the unlimited claim does (decision 299): a claim lost in a crash
 * leaves its steps available and the running steps a cap counts with it, and the fair share's
 * turn lost with it only moves back. A rate-limited kind keeps the durable commit: a start that
 * ran must stay counted (decision 387).
 */
export function claimWithinLimits(t: Tables, { p, allowed, limits }: ClaimWithinLimitsSource) {
  return `claimed AS (
  UPDATE ${t.stepsHot} s
  SET state = ${p.toState}::text, ${claimColumns(t, p.workerId, p.leaseMs)}
  -- The fence: a candidate another writer moved since this statement's snapshot (a cancel, a
  -- pause, a new schedule) is checked again once that writer's lock is gone, and left when it is
  -- no longer claimable. No other claim takes steps of this kind meanwhile (one that finds the
  -- kind's row locked claims nothing), so the update waits for such a lock, held briefly, rather
  -- than skipping the row.
  WHERE s.id = ANY(ARRAY(SELECT id FROM ${allowed}))
    AND s.state = ${available} AND s.scheduled_at <= now()
  RETURNING ${ClaimedColumns}
), recorded AS (
  INSERT INTO ${t.rateStarts} (kind, key, at)
  SELECT l.kind, CASE WHEN l.rate_per_key THEN c.concurrency_key END, now()
  FROM claimed c, ${limits} WHERE l.rate_limit IS NOT NULL
), purged AS (
  DELETE FROM ${t.rateStarts} r USING ${limits}
  WHERE r.kind = l.kind
    AND (l.rate_limit IS NULL OR r.at <= now() - l.rate_period_ms * interval '1 millisecond')
), commit_mode AS MATERIALIZED (
  SELECT set_config('synchronous_commit',
    CASE WHEN EXISTS (SELECT 1 FROM ${limits} WHERE l.rate_limit IS NOT NULL)
         THEN current_setting('synchronous_commit') ELSE 'off' END, true) AS mode
)`;
}
