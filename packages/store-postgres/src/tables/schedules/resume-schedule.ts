import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { scheduleColumns, type ScheduleRow } from './schedule-row.js';

/** The schedule to resume and its first tick after now. */
export interface ResumeScheduleParams {
  id: string;
  nextRunAt: Date | null;
}

/**
 * Enables a schedule. A disabled one starts again at `nextRunAt` (its first tick after now), so
 * ticks that passed while it was paused are not fired as missed; an enabled one is left as it is.
 */
const statement = defineStatement<ResumeScheduleParams, ScheduleRow>(
  'resume-schedule',
  (t, p) => `
UPDATE ${t.schedules} s
SET enabled = true,
    next_run_at = CASE WHEN s.enabled THEN s.next_run_at ELSE ${p.nextRunAt}::timestamptz END,
    updated_at = CASE WHEN s.enabled THEN s.updated_at ELSE now() END
WHERE id = ${p.id}
RETURNING ${scheduleColumns}
`,
);

/** Enables a schedule (see the statement); undefined for an unknown id. */
export function resumeScheduleRow(
  db: SqlRunner,
  p: ResumeScheduleParams,
): Promise<ScheduleRow | undefined> {
  return db.one(statement, p);
}
