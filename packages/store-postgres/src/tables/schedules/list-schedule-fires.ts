import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import type { FireRow } from './schedule-row.js';

/** Whose fires, and how many. */
export interface ListScheduleFiresParams {
  scheduleId: string;
  limit: number;
}

const statement = defineStatement<ListScheduleFiresParams, FireRow>(
  'list-schedule-fires',
  (t, p) => `
SELECT schedule_id, fire_at, outcome, run_id, late, error, created_at
FROM ${t.scheduleFires} WHERE schedule_id = ${p.scheduleId}
ORDER BY fire_at DESC LIMIT ${p.limit}
`,
);

/** A schedule's fires, newest tick first. */
export function listScheduleFireRows(
  db: SqlRunner,
  p: ListScheduleFiresParams,
): Promise<FireRow[]> {
  return db.rows(statement, p);
}
