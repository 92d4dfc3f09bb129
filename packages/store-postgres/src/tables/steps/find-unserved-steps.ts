import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** How the sweep decides a kind is unserved. */
export interface FindUnservedStepsParams {
  /** A worker unseen for longer is gone. */
  livenessMs: number;
  graceMs: number;
  limit: number;
}

/** An available step no live worker handles. */
export interface UnservedStepRow {
  id: string;
  run_id: string;
  kind: string;
}

/**
 * Available steps, waiting longer than the grace period, whose kind no live worker handles while
 * at least one worker is live. The distinct available kinds are found by skipping through the
 * claim index (one probe per kind), so a large backlog of served kinds costs nothing here.
 */
const statement = defineStatement<FindUnservedStepsParams, UnservedStepRow>(
  'find-unserved-steps',
  (t, p) => `
WITH RECURSIVE kinds AS (
  (SELECT kind FROM ${t.stepsHot} WHERE state = 'available' ORDER BY kind LIMIT 1)
  UNION ALL
  SELECT (SELECT s.kind FROM ${t.stepsHot} s
          WHERE s.state = 'available' AND s.kind > kinds.kind ORDER BY s.kind LIMIT 1)
  FROM kinds WHERE kinds.kind IS NOT NULL
), live AS (
  SELECT kinds FROM ${t.workers}
  WHERE last_seen_at > now() - (SELECT ${p.livenessMs}::bigint) * interval '1 millisecond'
), unserved AS (
  SELECT k.kind FROM kinds k
  WHERE k.kind IS NOT NULL AND EXISTS (SELECT 1 FROM live)
    AND NOT EXISTS (SELECT 1 FROM live WHERE k.kind = ANY(live.kinds))
)
SELECT s.id, s.run_id, s.kind FROM unserved u
JOIN LATERAL (
  SELECT id, run_id, kind FROM ${t.stepsHot}
  WHERE state = 'available' AND kind = u.kind
    AND scheduled_at < now() - (SELECT ${p.graceMs}::bigint) * interval '1 millisecond'
  -- In the claim index's order, so the walk stops after the first rows that qualify.
  ORDER BY priority DESC NULLS LAST, scheduled_at
  LIMIT (SELECT ${p.limit}::int)
) s ON true
LIMIT (SELECT ${p.limit}::int)
`,
);

/** Finds steps whose kind no live worker handles (see the statement). */
export function findUnservedSteps(
  db: SqlRunner,
  p: FindUnservedStepsParams,
): Promise<UnservedStepRow[]> {
  return db.rows(statement, p);
}
