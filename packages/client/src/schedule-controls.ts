import type { BackfillResult, ScheduleFire, ScheduleStatus } from '@cyclone/store-postgres';
import type { WorkflowDefinition } from '@cyclone/core';
import { FairShareControls } from './fair-share-controls.js';
import type {
  BackfillRange,
  ListScheduleFiresOptions,
  ScheduleOptions,
} from './schedule-options.js';
import type { ScheduleApi } from './schedules.js';

/**
 * The schedule side of the {@link Client}: declare, pause, resume, delete, list and backfill cron
 * schedules. Every input is validated before anything is written.
 */
export abstract class ScheduleControls extends FairShareControls {
  /** The schedule operations every method delegates to. */
  protected abstract readonly schedules: ScheduleApi;

  /**
   * Creates or replaces a cron schedule by id and returns it (see {@link ScheduleOptions}).
   * With a built definition as `workflow`, `input` is typed by its input schema and checked
   * against it, as `submit` checks a run's input.
   * @throws ValidationError naming the field (a cron of the wrong shape, an unknown time zone,
   *   both or neither of `workflow` and `kind`, an input its workflow's schema refuses, each issue
   *   with its path as a list of keys), with nothing written
   */
  schedule<const D extends WorkflowDefinition = WorkflowDefinition>(
    options: ScheduleOptions<D>,
  ): Promise<ScheduleStatus> {
    return this.schedules.schedule(options);
  }

  /** Disables a schedule (`enabled = false`). @throws NotFoundError for an unknown id */
  pauseSchedule(id: string): Promise<ScheduleStatus> {
    return this.schedules.pause(id);
  }

  /** Enables a schedule at its next tick: ticks passed while paused do not fire. @throws NotFoundError */
  resumeSchedule(id: string): Promise<ScheduleStatus> {
    return this.schedules.resume(id);
  }

  /**
   * Deletes a schedule: its row goes, with the record of its fires, and no fire follows once this
   * has resolved (a fire in progress commits first). The runs it already started are untouched.
   * Resolves with the schedule as it was.
   * @throws NotFoundError for an unknown id
   */
  deleteSchedule(id: string): Promise<ScheduleStatus> {
    return this.schedules.delete(id);
  }

  /** The same UPDATE as {@link Client.pauseSchedule}. @deprecated Use `pauseSchedule`. */
  unschedule(id: string): Promise<ScheduleStatus> {
    return this.schedules.pause(id);
  }

  /** One schedule. @throws NotFoundError for an unknown id */
  getSchedule(id: string): Promise<ScheduleStatus> {
    return this.schedules.get(id);
  }

  /** Every schedule, by id. */
  listSchedules(): Promise<ScheduleStatus[]> {
    return this.schedules.list();
  }

  /** A schedule's fires, newest tick first. @throws NotFoundError for an unknown id */
  listScheduleFires(id: string, options?: ListScheduleFiresOptions): Promise<ScheduleFire[]> {
    return this.schedules.fires(id, options);
  }

  /**
   * One run for every tick in the past range `[from, to)` that has none, each at most once.
   * @throws NotFoundError for an unknown id; ValidationError for a range reaching into the future
   */
  backfill(id: string, range: BackfillRange): Promise<BackfillResult> {
    return this.schedules.backfill(id, range);
  }
}
