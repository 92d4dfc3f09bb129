import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** Fires of one schedule, one entry per tick. */
export interface InsertFiresParams {
  scheduleId: string;
  fireAts: Date[];
  outcomes: string[];
  runIds: (string | null)[];
  lates: boolean[];
  errors: (string | null)[];
}

/**
 * Records fires; a tick that has a fire already is left as it is (ON CONFLICT DO NOTHING) and not
 * returned, so the caller starts a run only for the ticks this statement took.
 */
const statement = defineStatement<InsertFiresParams, { fire_at: Date }>(
  'insert-fires',
  (t, p) => `
INSERT INTO ${t.scheduleFires} (schedule_id, fire_at, outcome, run_id, late, error)
SELECT ${p.scheduleId}, f.fire_at, f.outcome, f.run_id, f.late, f.error
FROM unnest(${p.fireAts}::timestamptz[], ${p.outcomes}::text[], ${p.runIds}::uuid[],
            ${p.lates}::boolean[], ${p.errors}::text[]) AS f(fire_at, outcome, run_id, late, error)
ON CONFLICT (schedule_id, fire_at) DO NOTHING
RETURNING fire_at
`,
);

/** Records fires (see the statement); returns the ticks it took. */
export async function insertFires(db: SqlRunner, p: InsertFiresParams): Promise<Set<number>> {
  return new Set((await db.rows(statement, p)).map((r) => r.fire_at.getTime()));
}
