import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { scheduleColumns, type ScheduleRow } from './schedule-row.js';

/** The schedule to read. */
export interface GetScheduleParams {
  id: string;
}

const read = defineStatement<GetScheduleParams, ScheduleRow>(
  'get-schedule',
  (t, p) => `SELECT ${scheduleColumns} FROM ${t.schedules} WHERE id = ${p.id}`,
);

// Backfill and resume read the schedule under its lock, so a scanner pass cannot interleave.
const lock = defineStatement<GetScheduleParams, ScheduleRow>(
  'lock-schedule',
  (t, p) => `SELECT ${scheduleColumns} FROM ${t.schedules} WHERE id = ${p.id} FOR UPDATE`,
);

/** One schedule, or undefined. */
export function getScheduleRow(
  db: SqlRunner,
  p: GetScheduleParams,
): Promise<ScheduleRow | undefined> {
  return db.one(read, p);
}

/** One schedule, locked for the rest of the transaction; undefined for an unknown id. */
export function lockScheduleRow(
  db: SqlRunner,
  p: GetScheduleParams,
): Promise<ScheduleRow | undefined> {
  return db.one(lock, p);
}
