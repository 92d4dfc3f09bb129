/**
 * What a schedule does when a tick comes while its previous run is still active (overlap), and
 * with the ticks it missed while no scheduler ran (catch-up). Pure rules: the scheduler reads the
 * schedule's row and the clock of the database, asks these functions, and writes what they say.
 *
 * @packageDocumentation
 */
import { cronFiresBefore, nextCronFire, type CronSchedule } from './cron-schedule.js';

/** What a fire does while the schedule's previous run is still active. */
export const OverlapPolicy = {
  /** The fire is recorded `skipped` and starts no run (the default). */
  Skip: 'skip',
  /** The fire starts a run beside the active one. */
  Allow: 'allow',
  /** The active run is cancelled as `client.cancel` would, then the new run starts. */
  CancelPrevious: 'cancel_previous',
} as const;
/** An {@link OverlapPolicy} value. */
export type OverlapPolicy = (typeof OverlapPolicy)[keyof typeof OverlapPolicy];

/** Which of the ticks missed while no scheduler ran are fired late. */
export const CatchUpPolicy = {
  /** None: the schedule resumes at its next tick. */
  None: 'none',
  /** One run for the latest missed tick (the default). */
  Latest: 'latest',
  /** Every missed tick, oldest first, up to the schedule's `catchUpLimit`. */
  All: 'all',
} as const;
/** A {@link CatchUpPolicy} value. */
export type CatchUpPolicy = (typeof CatchUpPolicy)[keyof typeof CatchUpPolicy];

/** The default overlap policy. */
export const DefaultOverlapPolicy: OverlapPolicy = OverlapPolicy.Skip;
/** The default catch-up policy. */
export const DefaultCatchUpPolicy: CatchUpPolicy = CatchUpPolicy.Latest;
/** The default `catchUpLimit`: most missed ticks fired under {@link CatchUpPolicy.All}. */
export const DefaultCatchUpLimit = 100;

/** A fire found this long after its tick is labelled `Late`. */
export const LateFireMs = 15_000;

/** Whether a fire handled at `handledAt` for the tick `fireAt` counts as late. */
export function isLateFire(fireAt: Date, handledAt: Date): boolean {
  return handledAt.getTime() - fireAt.getTime() > LateFireMs;
}

/** What {@link planDueFires} needs to know about a schedule and the time. */
export interface DueFiresInput {
  readonly schedule: CronSchedule;
  /** The first tick not handled yet (the schedule's `next_run_at`). */
  readonly nextRunAt: Date;
  /** The database's clock. */
  readonly now: Date;
  readonly catchUp: CatchUpPolicy;
  readonly catchUpLimit: number;
}

/** The ticks to fire now, the ticks passed over, and the schedule's next `next_run_at`. */
export interface DueFires {
  /** Ticks to fire, oldest first. */
  readonly fire: readonly Date[];
  /** Missed ticks the catch-up policy drops (recorded as skipped by the caller if it wishes). */
  readonly dropped: readonly Date[];
  /** The first tick after `now`: the schedule's new `next_run_at` (undefined: never again). */
  readonly nextRunAt: Date | undefined;
}

/**
 * Decides which ticks in `[nextRunAt, now]` fire. The tick that is due now (the last one, when it
 * is not late) always fires; the earlier ones, and a latest one that is late, are missed ticks
 * and follow the catch-up policy: `none` fires none of them, `latest` fires only the newest, `all`
 * fires up to `catchUpLimit` of them, the newest ones, oldest first.
 */
export function planDueFires(input: DueFiresInput): DueFires {
  const { schedule, now } = input;
  const end = new Date(now.getTime() + 1);
  // Look at one more tick than could ever be fired, so a huge backlog is bounded but still seen.
  const window = Math.max(1, input.catchUpLimit) + 1;
  const ticks = latestTicks(schedule, input.nextRunAt, end, window);
  const nextRunAt = nextCronFire(schedule, now);
  if (ticks.length === 0) return { fire: [], dropped: [], nextRunAt };

  const newest = ticks[ticks.length - 1]!;
  const onTime = !isLateFire(newest, now);
  const missed = onTime ? ticks.slice(0, -1) : ticks;
  let caughtUp: Date[];
  switch (input.catchUp) {
    case CatchUpPolicy.None:
      caughtUp = [];
      break;
    case CatchUpPolicy.Latest:
      caughtUp = missed.slice(-1);
      break;
    case CatchUpPolicy.All:
      caughtUp = missed.slice(-Math.max(0, input.catchUpLimit));
      break;
  }
  const fire = onTime ? [...caughtUp, newest] : caughtUp;
  const fired = new Set(fire.map((d) => d.getTime()));
  return { fire, dropped: missed.filter((d) => !fired.has(d.getTime())), nextRunAt };
}

/** The newest `count` ticks in `[from, to)`, oldest first, without enumerating a long gap whole. */
function latestTicks(schedule: CronSchedule, from: Date, to: Date, count: number): Date[] {
  // Counting back from `to` keeps the work bounded by `count`: a scheduler that was down for a
  // year on a per-second schedule must not walk through millions of ticks.
  return cronFiresBefore(schedule, to, count)
    .filter((tick) => tick.getTime() >= from.getTime())
    .reverse();
}
