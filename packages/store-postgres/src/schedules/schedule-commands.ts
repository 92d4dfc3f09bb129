import { nextCronFire } from '@cyclone/core';
import type { ScheduleFire, ScheduleStatus, ScheduleUpsert } from '../contract/schedule-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { databaseNow } from '../db/database-now.js';
import { deleteScheduleRow } from '../tables/schedules/delete-schedule.js';
import { getScheduleRow, lockScheduleRow } from '../tables/schedules/get-schedule.js';
import { listScheduleFireRows } from '../tables/schedules/list-schedule-fires.js';
import { listScheduleRows } from '../tables/schedules/list-schedules.js';
import { pauseScheduleRow } from '../tables/schedules/pause-schedule.js';
import { resumeScheduleRow } from '../tables/schedules/resume-schedule.js';
import { toScheduleFire, toScheduleStatus } from '../tables/schedules/schedule-row.js';
import { storeDefinition } from '../tables/workflows/store-definition.js';
import { upsertScheduleRow } from '../tables/schedules/upsert-schedule.js';

/**
 * Creates or replaces a schedule, in one transaction with the definition it names (stored by
 * hash, as submit stores it). Its first tick is the first after the database's clock.
 */
export function upsertSchedule(db: SqlRunner, s: ScheduleUpsert): Promise<ScheduleStatus> {
  return db.transaction(async (tx) => {
    if (s.definition) {
      await storeDefinition(tx, {
        hash: s.definition.hash,
        name: s.definition.name,
        definitionJson: JSON.stringify(s.definition),
      });
    }
    const now = await databaseNow(tx);
    const row = await upsertScheduleRow(tx, {
      id: s.id,
      cron: s.cron,
      timezone: s.timezone,
      workflow: s.workflow,
      kind: s.kind,
      inputJson: s.inputJson,
      enabled: s.enabled,
      overlap: s.overlap,
      catchUp: s.catchUp,
      catchUpLimit: s.catchUpLimit,
      nextRunAt: nextCronFire(s, now) ?? null,
    });
    return toScheduleStatus(row);
  });
}

/** Disables a schedule; undefined for an unknown id. */
export async function pauseSchedule(
  db: SqlRunner,
  id: string,
): Promise<ScheduleStatus | undefined> {
  const row = await pauseScheduleRow(db, { id });
  return row && toScheduleStatus(row);
}

/**
 * Enables a schedule at its first tick after the database's clock: ticks that passed while it was
 * paused were not missed by a scheduler that was down, they were declined, and do not fire.
 */
export function resumeSchedule(db: SqlRunner, id: string): Promise<ScheduleStatus | undefined> {
  return db.transaction(async (tx) => {
    const current = await lockScheduleRow(tx, { id });
    if (!current) return undefined;
    const now = await databaseNow(tx);
    const row = await resumeScheduleRow(tx, { id, nextRunAt: nextCronFire(current, now) ?? null });
    return row && toScheduleStatus(row);
  });
}

/**
 * Deletes a schedule and the record of its fires; the runs it started stay. The row is locked
 * first: a scheduler firing the schedule holds that lock until its fire commits, so the delete
 * waits for it, and once the delete has committed no pass finds the row again. Undefined for an
 * unknown id.
 */
export function deleteSchedule(db: SqlRunner, id: string): Promise<ScheduleStatus | undefined> {
  return db.transaction(async (tx) => {
    if (!(await lockScheduleRow(tx, { id }))) return undefined;
    const row = await deleteScheduleRow(tx, { id });
    return row && toScheduleStatus(row);
  });
}

/** One schedule, or undefined. */
export async function getSchedule(db: SqlRunner, id: string): Promise<ScheduleStatus | undefined> {
  const row = await getScheduleRow(db, { id });
  return row && toScheduleStatus(row);
}

/** Every schedule, by id. */
export async function listSchedules(db: SqlRunner): Promise<ScheduleStatus[]> {
  return (await listScheduleRows(db)).map(toScheduleStatus);
}

/** A schedule's fires, newest tick first. */
export async function listScheduleFires(
  db: SqlRunner,
  scheduleId: string,
  limit: number,
): Promise<ScheduleFire[]> {
  return (await listScheduleFireRows(db, { scheduleId, limit })).map(toScheduleFire);
}
