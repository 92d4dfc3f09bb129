import type { CatchUpPolicy, OverlapPolicy } from '@cyclone/core';
import type { ScheduleFire, ScheduleStatus } from '../../contract/schedule-store.js';

/** A `cyclone_schedules` row as the statements of this folder return it. */
export interface ScheduleRow {
  id: string;
  cron: string;
  timezone: string;
  workflow: string | null;
  kind: string | null;
  input: unknown;
  /** The input as JSON text, ready to submit. */
  input_json: string;
  enabled: boolean;
  overlap: OverlapPolicy;
  catch_up: CatchUpPolicy;
  catch_up_limit: number;
  consecutive_failures: number;
  last_error: string | null;
  next_run_at: Date | null;
  last_fire_at: Date | null;
  last_run_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The columns every statement here returns, for {@link toScheduleStatus}. */
export const scheduleColumns = `id, cron, timezone, workflow, kind, input, input::text AS input_json,
  enabled, overlap, catch_up, catch_up_limit, consecutive_failures, last_error, next_run_at,
  last_fire_at, last_run_id, created_at, updated_at`;

/** A schedule row as the contract shows it. */
export function toScheduleStatus(row: ScheduleRow): ScheduleStatus {
  return {
    id: row.id,
    kind: row.kind,
    workflow: row.workflow,
    cron: row.cron,
    timezone: row.timezone,
    input: row.input,
    enabled: row.enabled,
    overlap: row.overlap,
    catchUp: row.catch_up,
    catchUpLimit: row.catch_up_limit,
    consecutiveFailures: row.consecutive_failures,
    nextRunAt: row.next_run_at,
    lastFireAt: row.last_fire_at,
    lastRunId: row.last_run_id,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A `cyclone_schedule_fires` row. */
export interface FireRow {
  schedule_id: string;
  fire_at: Date;
  outcome: ScheduleFire['outcome'];
  run_id: string | null;
  late: boolean;
  error: string | null;
  created_at: Date;
}

/** A fire row as the contract shows it. */
export function toScheduleFire(row: FireRow): ScheduleFire {
  return {
    scheduleId: row.schedule_id,
    fireAt: row.fire_at,
    runId: row.run_id,
    outcome: row.outcome,
    late: row.late,
    ...(row.error === null ? {} : { error: row.error }),
    createdAt: row.created_at,
  };
}
