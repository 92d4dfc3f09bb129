import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** A leader lease and who asks for it. */
export interface LeadershipParams {
  name: string;
  holder: string;
}

/** {@link LeadershipParams} with the lease's length. */
export interface AttemptLeadershipParams extends LeadershipParams {
  leaseMs: number;
}

/**
 * Takes or renews a named leader lease. Returns a row only when the caller holds the lease
 * afterwards: it held it already, or the previous holder's lease had expired.
 *
 * Every success stamps `renewed_at`. A success on a lease that had lapsed (expired, given up, or
 * never held) also starts a new leadership (`led_since`) and records the gap in
 * `cyclone_leader_gaps`, from the last renewal before the lapse until now: the downtime whose
 * schedule ticks were missed (decision 240). Whether the lease had lapsed is read from the row the
 * upsert actually updates, so two attempts racing record one gap; the gap's start is the
 * statement's snapshot of that row, which is the same row unless it changed and lapsed again
 * within the statement.
 */
const statement = defineStatement<AttemptLeadershipParams, { holder: string }>(
  'attempt-leadership',
  (t, p) => `
WITH previous AS (
  SELECT renewed_at FROM ${t.leaders} WHERE name = ${p.name}
), lease AS (
  INSERT INTO ${t.leaders} AS l (name, holder, expires_at, renewed_at, led_since)
  VALUES (${p.name}, ${p.holder}, now() + ${p.leaseMs}::bigint * interval '1 millisecond', now(),
          now())
  ON CONFLICT (name) DO UPDATE
  SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at, renewed_at = now(),
      led_since = CASE WHEN l.expires_at < now() THEN now() ELSE l.led_since END
  WHERE l.holder = EXCLUDED.holder OR l.expires_at < now()
  RETURNING holder, led_since
), gap AS (
  INSERT INTO ${t.leaderGaps} (name, started_at, ended_at)
  SELECT ${p.name}, (SELECT renewed_at FROM previous), lease.led_since
  FROM lease WHERE lease.led_since = now()
  ON CONFLICT DO NOTHING
)
SELECT holder FROM lease
`,
);

/** Takes or renews a leader lease; true while `holder` leads. */
export async function attemptLeadership(
  db: SqlRunner,
  p: AttemptLeadershipParams,
): Promise<boolean> {
  return (await db.rows(statement, p)).length > 0;
}
