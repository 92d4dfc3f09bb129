import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { scheduleColumns, type ScheduleRow } from './schedule-row.js';

/** The columns of a schedule to create or replace. */
export interface UpsertScheduleParams {
  id: string;
  cron: string;
  timezone: string;
  workflow: string | null;
  kind: string | null;
  inputJson: string;
  enabled: boolean;
  overlap: string;
  catchUp: string;
  catchUpLimit: number;
  /** The first tick after now, used unless the schedule keeps its own (see the statement). */
  nextRunAt: Date | null;
}

/**
 * Creates or replaces a schedule by id. A schedule that stays enabled with the same cron and time
 * zone keeps its `next_run_at`, so re-declaring schedules at every deploy neither skips nor
 * repeats a tick; any other change starts from the first tick after now. Its failure count and
 * history stay.
 */
const statement = defineStatement<UpsertScheduleParams, ScheduleRow>(
  'upsert-schedule',
  (t, p) => `
INSERT INTO ${t.schedules} AS s (id, cron, timezone, workflow, kind, input, enabled, overlap,
                                 catch_up, catch_up_limit, next_run_at)
VALUES (${p.id}, ${p.cron}, ${p.timezone}, ${p.workflow}::text, ${p.kind}::text,
        ${p.inputJson}::jsonb, ${p.enabled}, ${p.overlap}, ${p.catchUp}, ${p.catchUpLimit},
        ${p.nextRunAt}::timestamptz)
ON CONFLICT (id) DO UPDATE SET
  cron = EXCLUDED.cron, timezone = EXCLUDED.timezone, workflow = EXCLUDED.workflow,
  kind = EXCLUDED.kind, input = EXCLUDED.input, enabled = EXCLUDED.enabled,
  overlap = EXCLUDED.overlap, catch_up = EXCLUDED.catch_up,
  catch_up_limit = EXCLUDED.catch_up_limit,
  next_run_at = CASE
    WHEN s.enabled AND EXCLUDED.enabled AND s.cron = EXCLUDED.cron
         AND s.timezone = EXCLUDED.timezone THEN s.next_run_at
    ELSE EXCLUDED.next_run_at END,
  updated_at = now()
RETURNING ${scheduleColumns}
`,
);

/** Creates or replaces a schedule (see the statement). */
export async function upsertScheduleRow(
  db: SqlRunner,
  p: UpsertScheduleParams,
): Promise<ScheduleRow> {
  return (await db.one(statement, p))!;
}
