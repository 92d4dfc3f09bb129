import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** A schedule whose pass failed, and why. */
export interface RecordScheduleFailureParams {
  id: string;
  error: string;
}

/**
 * Counts a scanner failure on a schedule whose pass was rolled back: nothing of the pass was
 * written, `next_run_at` stays, and the next pass tries the same ticks again.
 */
const statement = defineStatement<RecordScheduleFailureParams>(
  'record-schedule-failure',
  (t, p) => `
UPDATE ${t.schedules}
SET consecutive_failures = consecutive_failures + 1, last_error = ${p.error}, updated_at = now()
WHERE id = ${p.id}
`,
);

/** Records a scanner failure on a schedule (see the statement). */
export async function recordScheduleFailure(
  db: SqlRunner,
  p: RecordScheduleFailureParams,
): Promise<void> {
  await db.count(statement, p);
}
