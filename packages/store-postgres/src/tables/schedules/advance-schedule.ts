import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** A schedule after one pass over its due ticks. */
export interface AdvanceScheduleParams {
  id: string;
  /** The `next_run_at` the pass read; the update applies only while it is still there. */
  previousNextRunAt: Date;
  nextRunAt: Date | null;
  /** The newest tick handled, or null to keep the one stored. */
  lastFireAt: Date | null;
  /** The newest run started, or null to keep the one stored. */
  lastRunId: string | null;
  /** 'failed' adds one to the failure count, 'submitted' resets it, 'none' keeps it. */
  failures: 'failed' | 'submitted' | 'none';
  /** The failure's message when `failures` is 'failed'. */
  error: string | null;
}

/** Moves a schedule to its next tick, guarded by the tick the pass read. */
const statement = defineStatement<AdvanceScheduleParams, { id: string }>(
  'advance-schedule',
  (t, p) => `
UPDATE ${t.schedules} s
SET next_run_at = ${p.nextRunAt}::timestamptz,
    last_fire_at = coalesce(${p.lastFireAt}::timestamptz, s.last_fire_at),
    last_run_id = coalesce(${p.lastRunId}::uuid, s.last_run_id),
    last_run_at = CASE WHEN ${p.lastRunId}::uuid IS NULL THEN s.last_run_at ELSE now() END,
    consecutive_failures = CASE ${p.failures}::text
      WHEN 'failed' THEN s.consecutive_failures + 1
      WHEN 'submitted' THEN 0
      ELSE s.consecutive_failures END,
    last_error = coalesce(${p.error}::text, s.last_error),
    updated_at = now()
WHERE s.id = ${p.id} AND s.next_run_at = ${p.previousNextRunAt}::timestamptz
RETURNING s.id
`,
);

/** Advances a schedule (see the statement); false when its `next_run_at` had moved. */
export async function advanceSchedule(db: SqlRunner, p: AdvanceScheduleParams): Promise<boolean> {
  return (await db.count(statement, p)) === 1;
}
