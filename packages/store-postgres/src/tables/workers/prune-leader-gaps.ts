import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The leader lease whose old gaps to delete. */
export interface PruneLeaderGapsParams {
  name: string;
}

/**
 * Deletes the gaps of a lease that end no later than every enabled schedule's `next_run_at`:
 * their ticks are all handled. A schedule created, changed or resumed later starts at its first
 * tick after the database's clock, after every recorded gap, so none of them can matter to it.
 */
const statement = defineStatement<PruneLeaderGapsParams>(
  'prune-leader-gaps',
  (t, p) => `
DELETE FROM ${t.leaderGaps}
WHERE name = ${p.name}
  AND ended_at <= coalesce((SELECT min(next_run_at) FROM ${t.schedules} WHERE enabled),
                           'infinity'::timestamptz)
`,
);

/** Deletes the gaps no enabled schedule can need (see the statement). */
export async function pruneLeaderGaps(db: SqlRunner, p: PruneLeaderGapsParams): Promise<void> {
  await db.count(statement, p);
}
