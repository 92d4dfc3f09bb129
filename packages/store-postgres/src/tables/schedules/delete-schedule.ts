import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { scheduleColumns, type ScheduleRow } from './schedule-row.js';

/** The schedule to delete. */
export interface DeleteScheduleParams {
  id: string;
}

/**
 * Deletes a schedule and the record of its fires. The runs its fires started are not touched: they
 * are runs like any other from here on. Issued after the schedule's row is locked, so the fires
 * deleted are every fire committed before (see `deleteSchedule`).
 */
const statement = defineStatement<DeleteScheduleParams, ScheduleRow>(
  'delete-schedule',
  (t, p) => `
WITH fires AS (DELETE FROM ${t.scheduleFires} WHERE schedule_id = ${p.id})
DELETE FROM ${t.schedules} WHERE id = ${p.id}
RETURNING ${scheduleColumns}
`,
);

/** Deletes a schedule and its fires; undefined for an unknown id. */
export function deleteScheduleRow(
  db: SqlRunner,
  p: DeleteScheduleParams,
): Promise<ScheduleRow | undefined> {
  return db.one(statement, p);
}
