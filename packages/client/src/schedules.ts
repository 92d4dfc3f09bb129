import {
  checkRunInput,
  encodePayload,
  NotFoundError,
  type WorkflowDefinition,
} from '@cyclone/core';
import type {
  BackfillResult,
  ClientStore,
  ScheduleFire,
  ScheduleStatus,
} from '@cyclone/store-postgres';
import {
  parseBackfillRange,
  parseFiresLimit,
  parseSchedule,
  parseScheduleId,
  type BackfillRange,
  type ListScheduleFiresOptions,
  type ScheduleOptions,
} from './schedule-options.js';

/**
 * The client's schedule operations, kept apart from run submission. Every input is validated
 * before anything is written; an unknown id is a `NotFoundError`.
 */
export class ScheduleApi {
  constructor(
    private readonly store: ClientStore,
    private readonly maxInputBytes: number,
  ) {}

  /**
   * Creates or replaces the schedule `options.id`; returns it. A built definition's input schema
   * checks the input first, as `submit` does, and its value is what every fire submits.
   */
  async schedule<D extends WorkflowDefinition>(
    options: ScheduleOptions<D>,
  ): Promise<ScheduleStatus> {
    const s = parseSchedule(options);
    // The schemas ride on the built object the caller holds; parsing made a plain copy.
    const input =
      typeof options.workflow === 'object'
        ? await checkRunInput(
            options.workflow,
            s.input,
            `input of schedule ${JSON.stringify(s.id)} of workflow ${JSON.stringify(s.workflow)}`,
          )
        : s.input;
    const inputJson = encodePayload(input === undefined ? null : input, {
      maxBytes: this.maxInputBytes,
      subject: s.kind === null ? 'schedule input' : 'schedule job arguments',
      path: 'input',
    });
    return this.store.upsertSchedule({
      id: s.id,
      cron: s.cron,
      timezone: s.timezone,
      workflow: s.workflow,
      definition: s.definition,
      kind: s.kind,
      inputJson,
      enabled: s.enabled,
      overlap: s.overlap,
      catchUp: s.catchUp,
      catchUpLimit: s.catchUpLimit,
    });
  }

  /** Disables a schedule. */
  async pause(id: string): Promise<ScheduleStatus> {
    return found(id, await this.store.pauseSchedule(parseScheduleId(id)));
  }

  /** Enables a schedule at its first tick after now. */
  async resume(id: string): Promise<ScheduleStatus> {
    return found(id, await this.store.resumeSchedule(parseScheduleId(id)));
  }

  /** Deletes a schedule and its fires' record; returns it as it was. Its runs stay. */
  async delete(id: string): Promise<ScheduleStatus> {
    return found(id, await this.store.deleteSchedule(parseScheduleId(id)));
  }

  /** One schedule. */
  async get(id: string): Promise<ScheduleStatus> {
    return found(id, await this.store.getSchedule(parseScheduleId(id)));
  }

  /** Every schedule, by id. */
  list(): Promise<ScheduleStatus[]> {
    return this.store.listSchedules();
  }

  /** A schedule's fires, newest tick first. */
  async fires(id: string, options?: ListScheduleFiresOptions): Promise<ScheduleFire[]> {
    const limit = parseFiresLimit(options);
    await this.get(id);
    return this.store.listScheduleFires(id, limit);
  }

  /** One run per past tick in `[from, to)` that has none. */
  async backfill(id: string, range: BackfillRange): Promise<BackfillResult> {
    const scheduleId = parseScheduleId(id);
    const { from, to } = parseBackfillRange(range);
    return found(id, await this.store.backfillSchedule(scheduleId, from, to));
  }
}

function found<T>(id: string, value: T | undefined): T {
  if (value === undefined) throw new NotFoundError('schedule', id);
  return value;
}
