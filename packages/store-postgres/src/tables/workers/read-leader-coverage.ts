import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The leader lease whose coverage a schedules pass reads. */
export interface ReadLeaderCoverageParams {
  name: string;
}

/** How far a lease's leadership is known, and the gaps in it schedules may still need. */
export interface LeaderCoverage {
  /** The lease's last renewal: ticks up to it fell while someone led or inside a recorded gap. */
  readonly renewedAt: Date;
  /** Recorded gaps that end after the oldest `next_run_at` of an enabled schedule, oldest first. */
  readonly gaps: readonly { readonly startedAt: Date | null; readonly endedAt: Date }[];
  /** Whether older gaps, which no enabled schedule can need any more, are left to delete. */
  readonly stale: boolean;
}

interface CoverageRow {
  renewed_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
  stale: boolean;
}

/**
 * One row per gap a due schedule may need (or one row with no gap): a gap matters to a schedule
 * while it ends after the schedule's `next_run_at`. A gap's end is rounded up to the millisecond,
 * the precision of a tick, so a tick in its last fraction of a millisecond still counts as missed.
 */
const statement = defineStatement<ReadLeaderCoverageParams, CoverageRow>(
  'read-leader-coverage',
  (t, p) => `
WITH oldest AS (SELECT min(next_run_at) AS at FROM ${t.schedules} WHERE enabled)
SELECT l.renewed_at, g.started_at,
       date_trunc('milliseconds', g.ended_at)
         + CASE WHEN g.ended_at > date_trunc('milliseconds', g.ended_at)
                THEN interval '1 millisecond' ELSE interval '0' END AS ended_at,
       EXISTS (SELECT 1 FROM ${t.leaderGaps} s
               WHERE s.name = l.name AND (o.at IS NULL OR s.ended_at <= o.at)) AS stale
FROM ${t.leaders} l
CROSS JOIN oldest o
LEFT JOIN ${t.leaderGaps} g ON g.name = l.name AND g.ended_at > o.at
WHERE l.name = ${p.name}
ORDER BY g.ended_at
`,
);

/** The coverage of a leader lease (see the statement); undefined when it was never held. */
export async function readLeaderCoverage(
  db: SqlRunner,
  p: ReadLeaderCoverageParams,
): Promise<LeaderCoverage | undefined> {
  const rows = await db.rows(statement, p);
  const first = rows[0];
  if (!first) return undefined;
  return {
    renewedAt: first.renewed_at,
    gaps: rows.flatMap((r) =>
      r.ended_at ? [{ startedAt: r.started_at, endedAt: r.ended_at }] : [],
    ),
    stale: first.stale,
  };
}
