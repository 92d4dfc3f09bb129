import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { scheduleColumns, type ScheduleRow } from './schedule-row.js';

/** The schedule to pause. */
export interface PauseScheduleParams {
  id: string;
}

/**
 * Disables a schedule: `enabled = false` and nothing else, the one UPDATE both `pauseSchedule`
 * and the deprecated `unschedule` issue. `next_run_at` stays; resume replaces it.
 */
const statement = defineStatement<PauseScheduleParams, ScheduleRow>(
  'pause-schedule',
  (t, p) => `
UPDATE ${t.schedules} SET enabled = false, updated_at = now() WHERE id = ${p.id}
RETURNING ${scheduleColumns}
`,
);

/** Disables a schedule; undefined for an unknown id. */
export function pauseScheduleRow(
  db: SqlRunner,
  p: PauseScheduleParams,
): Promise<ScheduleRow | undefined> {
  return db.one(statement, p);
}
