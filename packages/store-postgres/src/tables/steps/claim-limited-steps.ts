import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { sqlConstant } from '../events/record-events.js';
import {
  claimableSteps,
  claimedRows,
  claimedRowColumns,
  claimOrder,
  type ClaimChangeParams,
  type ClaimedStepRow,
} from './claim-parts.js';
import { claimWithinLimits } from './claim-within-limits.js';

/** What {@link claimLimitedSteps} claims, and for whom. */
export interface ClaimLimitedStepsParams extends ClaimChangeParams {
  kind: string;
  limit: number;
  leaseMs: number;
  /**
   * Most claimable steps looked at: under a per-key limit, steps of keys at their limit are passed
   * over, so this reaches beyond `limit` to find steps of other keys.
   */
  scan: number;
}

const running = sqlConstant('running');

/**
 * A row of {@link claimLimitedSteps}: a claimed step (`id` set), or, when nothing was claimed, one
 * row with `id` null. Each tells how far the claim looked: `candidates` claimable steps read (at
 * most `scan` in each range of priorities), `allowed` of them within the limits (at most `limit`),
 * and `reach`, the place in claim order of the last one allowed (null: none); `reach - allowed`
 * candidates before it were passed over for keys at their limit.
 */
export type ClaimLimitedStepsRow = { [K in keyof ClaimedStepRow]: ClaimedStepRow[K] | null } & {
  candidates: number;
  allowed: number;
  reach: number | null;
};

/**
 * Claims up to `limit` claimable steps of one kind that has a flow limit (`cyclone_limits`), never
 * more than the limit allows. It locks the kind's limit row with `FOR UPDATE SKIP LOCKED` first:
 * the claims of one limited kind take turns, and a claim that finds the row locked (another
 * worker claims the kind right now) claims nothing rather than wait; its worker tries again at its
 * next poll or notification. Under that lock it counts the steps of the kind running now (by
 * concurrency key under a per-key cap; steps without a key are one group) and the starts within
 * the rate limit's sliding window (`cyclone_rate_starts`, by key under a per-key limit), and
 * claims the best claimable steps (priority, then age) that keep every count within its limit.
 * The candidates are read without locks and only the steps claimed are locked, by the update,
 * which checks each is still claimable (decision 290). Each start of a rate-limited kind is
 * recorded, and starts older than the period are deleted.
 * Nothing else takes the lock: completions, cancels and the rest write the steps as ever, and a
 * step that leaves `running` frees its place at once.
 */
const statement = defineStatement<ClaimLimitedStepsParams, ClaimLimitedStepsRow>(
  'claim-limited-steps',
  (t, p) => `
WITH lim AS (
  -- Not a kind under fair share, read under the limit row's lock: putting a kind under fair share
  -- waits for that lock, so a claim that finds no fair-share row now commits before it is set,
  -- and a fair claim, which cannot count claims by others that leave its turn alone, never
  -- misses one (decision 400).
  SELECT * FROM ${t.limits} WHERE kind = (SELECT ${p.kind}::text)
    AND NOT EXISTS (SELECT 1 FROM ${t.fairShares} WHERE kind = (SELECT ${p.kind}::text))
  FOR UPDATE SKIP LOCKED
), running AS (
  SELECT CASE WHEN l.concurrency_per_key THEN s.concurrency_key END AS grp, count(*)::int AS n
  FROM lim l JOIN ${t.stepsHot} s ON s.state = ${running} AND s.kind = l.kind
  WHERE l.concurrency_max IS NOT NULL
  GROUP BY 1
), starts AS (
  SELECT r.key AS grp, count(*)::int AS n
  FROM lim l JOIN ${t.rateStarts} r
    ON r.kind = l.kind AND r.at > now() - l.rate_period_ms * interval '1 millisecond'
  WHERE l.rate_limit IS NOT NULL
  GROUP BY r.key
), cand AS (
  -- Read without locks: the claims of this kind take turns on its limit row, and under a per-key
  -- limit many candidates may be passed over (a claim reads up to its batch plus 1,000), so
  -- locking each would write a lock for every row looked at. The update below fences the ones it
  -- takes.
  SELECT s.* FROM lim l CROSS JOIN LATERAL (
    ${claimableSteps(t, 'l.kind', `(SELECT ${p.scan}::int)`, 'none')}
  ) s
), ranked AS (
  SELECT c.id, c.priority, c.scheduled_at,
         row_number() OVER (ORDER BY c.priority DESC, c.scheduled_at) AS pos,
         CASE WHEN l.concurrency_per_key THEN c.concurrency_key END AS conc_grp,
         CASE WHEN l.rate_per_key THEN c.concurrency_key END AS rate_grp,
         row_number() OVER (PARTITION BY CASE WHEN l.concurrency_per_key THEN c.concurrency_key END
                            ORDER BY c.priority DESC, c.scheduled_at) AS conc_rank,
         row_number() OVER (PARTITION BY CASE WHEN l.rate_per_key THEN c.concurrency_key END
                            ORDER BY c.priority DESC, c.scheduled_at) AS rate_rank
  FROM cand c, lim l
), allowed AS (
  -- A rank counts every better candidate of its group, taken or not, so a group's claims never
  -- pass its limit even where the other limit holds a better candidate back. The groups are
  -- joined on (is null, text) so that the join hashes however many keys there are.
  SELECT r.id, r.pos FROM ranked r CROSS JOIN lim l
  LEFT JOIN running u
    ON (u.grp IS NULL) = (r.conc_grp IS NULL) AND coalesce(u.grp, '') = coalesce(r.conc_grp, '')
  LEFT JOIN starts st
    ON (st.grp IS NULL) = (r.rate_grp IS NULL) AND coalesce(st.grp, '') = coalesce(r.rate_grp, '')
  WHERE (l.concurrency_max IS NULL OR r.conc_rank + coalesce(u.n, 0) <= l.concurrency_max)
    AND (l.rate_limit IS NULL OR r.rate_rank + coalesce(st.n, 0) <= l.rate_limit)
  ORDER BY r.priority DESC, r.scheduled_at
  LIMIT (SELECT ${p.limit}::int)
), ${claimWithinLimits(t, { p, allowed: 'allowed', limits: 'lim l' })}, rows AS (
  ${claimedRows(t)}
)
SELECT ${claimedRowColumns('rows')},
       (SELECT count(*)::int FROM ranked) AS candidates,
       (SELECT count(*)::int FROM allowed) AS allowed,
       (SELECT max(pos)::int FROM allowed) AS reach
-- One row at least, so that a claim of nothing still tells how far it looked.
FROM (SELECT 1) AS one CROSS JOIN commit_mode LEFT JOIN rows ON true
${claimOrder('rows')}
`,
);

/** Claims claimable steps of one limited kind within its limits (see the statement). */
export function claimLimitedSteps(
  db: SqlRunner,
  p: ClaimLimitedStepsParams,
): Promise<ClaimLimitedStepsRow[]> {
  return db.rows(statement, p);
}
