import type { CatchUpPolicy, OverlapPolicy, WorkflowDefinition } from '@cyclone/core';

/** A schedule as stored, for operators. */
export interface ScheduleStatus {
  readonly id: string;
  /** The standalone job kind it enqueues, or null for a workflow schedule. */
  readonly kind: string | null;
  /** The workflow name it submits, or null for a job schedule. */
  readonly workflow: string | null;
  readonly cron: string;
  readonly timezone: string;
  /** The run input (job arguments) every fire submits. */
  readonly input: unknown;
  readonly enabled: boolean;
  readonly overlap: OverlapPolicy;
  readonly catchUp: CatchUpPolicy;
  readonly catchUpLimit: number;
  /** Scanner, enqueue and submit failures since the last successful fire. */
  readonly consecutiveFailures: number;
  /** The first tick not handled yet (null: the expression never fires again). */
  readonly nextRunAt: Date | null;
  /** The tick of the newest fire handled. */
  readonly lastFireAt: Date | null;
  /** The run the newest submitted fire started. */
  readonly lastRunId: string | null;
  /** The newest failure's message; kept after a later success for the operator's record. */
  readonly lastError: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** What became of a schedule's tick. */
export type FireOutcome = 'submitted' | 'skipped' | 'failed';

/** One handled tick of a schedule. */
export interface ScheduleFire {
  readonly scheduleId: string;
  /** The tick (the cron time), not the time it was handled. */
  readonly fireAt: Date;
  /** The run the fire started; null when skipped or failed. */
  readonly runId: string | null;
  readonly outcome: FireOutcome;
  /** Handled more than `LateFireMs` after its tick: labelled `Late`. */
  readonly late: boolean;
  /** Why the fire was skipped or failed. */
  readonly error?: string;
  /** When it was handled (the database clock). */
  readonly createdAt: Date;
}

/** A schedule to create or replace, already validated. */
export interface ScheduleUpsert {
  readonly id: string;
  readonly cron: string;
  readonly timezone: string;
  /** Exactly one of `workflow` and `kind`. */
  readonly workflow: string | null;
  /** A built definition to store by hash (as submit does), when the caller gave one. */
  readonly definition: WorkflowDefinition | null;
  readonly kind: string | null;
  /** The input as encoded JSON text. */
  readonly inputJson: string;
  readonly enabled: boolean;
  readonly overlap: OverlapPolicy;
  readonly catchUp: CatchUpPolicy;
  readonly catchUpLimit: number;
}

/** What {@link ScheduleCommands.backfillSchedule} did. */
export interface BackfillResult {
  /** Ticks in the range that got a run now. */
  readonly created: number;
  /** Ticks in the range that had a run already. */
  readonly skipped: number;
}

/** The writes and reads of schedules an application or an operator makes. */
export interface ScheduleCommands {
  /** Creates or replaces a schedule; returns it. */
  upsertSchedule(schedule: ScheduleUpsert): Promise<ScheduleStatus>;
  /** Disables a schedule; undefined for an unknown id. */
  pauseSchedule(id: string): Promise<ScheduleStatus | undefined>;
  /**
   * Enables a schedule. A paused schedule resumes at its first tick after now: the ticks that
   * passed while it was paused do not fire. Undefined for an unknown id.
   */
  resumeSchedule(id: string): Promise<ScheduleStatus | undefined>;
  /**
   * Deletes a schedule and the record of its fires, waiting for a fire in progress to commit: no
   * fire follows once it has returned. The runs it started are left as they are. Returns the
   * schedule as it was; undefined for an unknown id.
   */
  deleteSchedule(id: string): Promise<ScheduleStatus | undefined>;
  /** One schedule, or undefined. */
  getSchedule(id: string): Promise<ScheduleStatus | undefined>;
  /** Every schedule, by id. */
  listSchedules(): Promise<ScheduleStatus[]>;
  /** A schedule's fires, newest tick first. */
  listScheduleFires(id: string, limit: number): Promise<ScheduleFire[]>;
  /**
   * Starts one run for every tick in `[from, to)` that has none (never fired, or skipped or
   * failed), in one transaction; idempotent. Undefined for an unknown id.
   *
   * @throws ValidationError when `to` is in the future, the range holds too many ticks, or the
   *   schedule's workflow has no stored definition
   */
  backfillSchedule(id: string, from: Date, to: Date): Promise<BackfillResult | undefined>;
}

/** What {@link ScheduleMaintenance.fireDueSchedules} needs. */
export interface FireDueSchedulesPass {
  /** The database clock for this pass, read once (see {@link ScheduleMaintenance.databaseNow}). */
  readonly now: Date;
  /**
   * The leader lease the pass runs under (the scheduler's `scheduler`). Its gaps are the downtimes
   * whose missed ticks follow each schedule's catch-up policy, and ticks after its last renewal
   * wait for a later pass: until the lease is renewed they may still fall into a downtime. A lease
   * never held decides nothing.
   */
  readonly lease: string;
  /** Workflows known to the scheduler by name; others are read from `cyclone_workflows`. */
  readonly workflows: ReadonlyMap<string, WorkflowDefinition>;
  /** Most schedules handled in one pass. @defaultValue 100 */
  readonly limit?: number;
}

/** What one pass of {@link ScheduleMaintenance.fireDueSchedules} did. */
export interface FireDueSchedulesResult {
  /** Schedules handled. */
  readonly schedules: number;
  readonly submitted: number;
  readonly skipped: number;
  readonly failed: number;
}

/** What the scheduler's schedules scanner needs. */
export interface ScheduleMaintenance {
  /** The database's clock (`now()`). */
  databaseNow(): Promise<Date>;
  /**
   * Handles the due ticks of enabled schedules, each schedule in its own transaction that records
   * every fire, the runs it started and the schedule's new `next_run_at` together. A tick that fell
   * due while a scheduler led fires; the ticks of a downtime follow the schedule's catch-up policy
   * (decision 27).
   */
  fireDueSchedules(pass: FireDueSchedulesPass): Promise<FireDueSchedulesResult>;
}
