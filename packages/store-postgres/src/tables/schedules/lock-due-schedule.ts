import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { scheduleColumns, type ScheduleRow } from './schedule-row.js';

/** The pass's clock and the schedules it handled already. */
export interface LockDueScheduleParams {
  now: Date;
  handled: string[];
}

/**
 * Locks the enabled schedule that is due soonest and not handled in this pass yet. SKIP LOCKED
 * lets a second scheduler (a leader that lost its lease and does not know it yet) pass over a
 * schedule another one is firing instead of waiting for it; the fires table and the guarded
 * `next_run_at` make whatever it does afterwards a no-op.
 */
const statement = defineStatement<LockDueScheduleParams, ScheduleRow>(
  'lock-due-schedule',
  (t, p) => `
SELECT ${scheduleColumns} FROM ${t.schedules}
WHERE enabled AND next_run_at <= ${p.now}::timestamptz AND id <> ALL(${p.handled}::text[])
ORDER BY next_run_at, id
LIMIT 1
FOR UPDATE SKIP LOCKED
`,
);

/** Locks the next due schedule of the pass (see the statement), or undefined when none is due. */
export function lockDueSchedule(
  db: SqlRunner,
  p: LockDueScheduleParams,
): Promise<ScheduleRow | undefined> {
  return db.one(statement, p);
}
