import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { scheduleColumns, type ScheduleRow } from './schedule-row.js';

const statement = defineStatement<Record<string, never>, ScheduleRow>(
  'list-schedules',
  (t) => `SELECT ${scheduleColumns} FROM ${t.schedules} ORDER BY id`,
);

/** Every schedule, by id. */
export function listScheduleRows(db: SqlRunner): Promise<ScheduleRow[]> {
  return db.rows(statement, {});
}
