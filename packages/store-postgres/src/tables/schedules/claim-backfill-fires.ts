import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** Backfilled ticks of one schedule and the run each would start. */
export interface ClaimBackfillFiresParams {
  scheduleId: string;
  fireAts: Date[];
  runIds: string[];
}

/**
 * Records a backfilled fire for each tick that has no run: a tick never handled gets a new fire,
 * a skipped or failed one becomes submitted; a tick that has a run already is left alone. Returns
 * the ticks it took with their run ids.
 */
const statement = defineStatement<ClaimBackfillFiresParams, { fire_at: Date; run_id: string }>(
  'claim-backfill-fires',
  (t, p) => `
INSERT INTO ${t.scheduleFires} AS f (schedule_id, fire_at, outcome, run_id, late, error)
SELECT ${p.scheduleId}, b.fire_at, 'submitted', b.run_id, true, NULL
FROM unnest(${p.fireAts}::timestamptz[], ${p.runIds}::uuid[]) AS b(fire_at, run_id)
ON CONFLICT (schedule_id, fire_at) DO UPDATE
  SET outcome = 'submitted', run_id = EXCLUDED.run_id, late = true, error = NULL,
      created_at = now()
  WHERE f.run_id IS NULL
RETURNING fire_at, run_id
`,
);

/** Claims backfilled ticks (see the statement). */
export function claimBackfillFires(
  db: SqlRunner,
  p: ClaimBackfillFiresParams,
): Promise<{ fire_at: Date; run_id: string }[]> {
  return db.rows(statement, p);
}
