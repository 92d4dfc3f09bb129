import type { Executor } from '../../db/executor.js';
import { defineStatement } from '../../db/statement.js';
import { scheduleColumns, type ScheduleRow } from './schedule-row.js';

const statement = defineStatement<Record<string, never>, ScheduleRow>(
  'list-schedules',
  (t) => `SELECT ${scheduleColumns} FROM ${t.schedules} ORDER BY id`,
);

/** Every schedule, by id. */
export function listScheduleRows(db: Executor): Promise<ScheduleRow[]> {
  return db.rows(statement, {});
}
