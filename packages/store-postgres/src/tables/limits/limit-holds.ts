import type { Tables } from '../../db/tables.js';

/**
 * SQL of a LATERAL subquery giving the flow limits of step `s` (an alias of `cyclone_steps` in
 * the enclosing statement) and what they hold now, counted by the step's concurrency key where a
 * limit is per key: `concurrency_max`, `concurrency_per_key`, `concurrency_running`, `rate_limit`,
 * `rate_period`, `rate_per_key`, `rate_starts`, `rate_until` (when the window has room again) and
 * `held` (whether the limits hold the step back now). Empty unless the step is available and its
 * kind has limits, so the reads of other steps pay one index probe of `cyclone_limits` at most.
 */
export function limitHolds(
  t: Pick<Tables, 'stepsHot' | 'limits' | 'rateStarts'>,
  s: string,
): string {
  const window = `r.kind = l.kind AND r.at > now() - l.rate_period_ms * interval '1 millisecond'
          AND (NOT l.rate_per_key OR r.key IS NOT DISTINCT FROM ${s}.concurrency_key)`;
  return `
  SELECT h.*,
         (h.concurrency_max IS NOT NULL AND h.concurrency_running >= h.concurrency_max)
         OR (h.rate_limit IS NOT NULL AND h.rate_starts >= h.rate_limit) AS held
  FROM (
    SELECT l.concurrency_max, l.concurrency_per_key, l.rate_limit, l.rate_period, l.rate_per_key,
           CASE WHEN l.concurrency_max IS NULL THEN 0 ELSE (
             SELECT count(*)::int FROM ${t.stepsHot} u
             WHERE u.state = 'running' AND u.kind = l.kind
               AND (NOT l.concurrency_per_key
                    OR u.concurrency_key IS NOT DISTINCT FROM ${s}.concurrency_key)) END
             AS concurrency_running,
           CASE WHEN l.rate_limit IS NULL THEN 0 ELSE (
             SELECT count(*)::int FROM ${t.rateStarts} r WHERE ${window}) END AS rate_starts,
           CASE WHEN l.rate_limit IS NULL THEN NULL ELSE (
             -- The start whose leaving the window makes room for one more.
             SELECT r.at + l.rate_period_ms * interval '1 millisecond' FROM ${t.rateStarts} r
             WHERE ${window}
             ORDER BY r.at
             OFFSET greatest(0, (SELECT count(*) FROM ${t.rateStarts} r WHERE ${window})
                                - l.rate_limit)
             LIMIT 1) END AS rate_until
    FROM ${t.limits} l
    WHERE l.kind = ${s}.kind AND ${s}.state = 'available'
  ) h`;
}
