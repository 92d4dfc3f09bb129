/**
 * What a schedule does when a tick comes while its previous run is still active (overlap), and
 * with the ticks it missed while no scheduler led (catch-up). Pure rules: the scheduler reads the
 * schedule's row, the clock of the database and the recorded downtimes, asks these functions, and
 * writes what they say.
 *
 * @packageDocumentation
 */
import {
  cronFiresBefore,
  cronFiresBetween,
  nextCronFire,
  type CronSchedule,
} from './cron-schedule.js';

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

/** Which of the ticks one downtime missed (see {@link Downtime}) are fired late. */
export const CatchUpPolicy = {
  /** None: the schedule goes on at its first tick after the downtime. */
  None: 'none',
  /** One run for the downtime, for its newest missed tick (the default). */
  Latest: 'latest',
  /** One run per missed tick, the newest `catchUpLimit` of the downtime's, oldest first. */
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

/**
 * A stretch of time in which no scheduler led (decision 27): from the last renewal of a leader lease
 * that then lapsed or was given up, until a scheduler took the lease again. A tick strictly inside
 * it was missed; a tick at either end was not.
 */
export interface Downtime {
  /** The last renewal before the lease lapsed; null when no scheduler is known to have led before. */
  readonly from: Date | null;
  /** When a scheduler took the lease again. */
  readonly until: Date;
}

/** Most ticks of one schedule one pass decides outside downtimes; a longer backlog goes on next pass. */
export const MaxLedTicksPerPass = 1_000;

/** What {@link planDueFires} needs to know about a schedule and the time. */
export interface DueFiresInput {
  readonly schedule: CronSchedule;
  /** The first tick not handled yet (the schedule's `next_run_at`). */
  readonly nextRunAt: Date;
  /**
   * The newest time the pass may decide: its clock, or the leader lease's last renewal when that is
   * earlier (a tick after it could still turn out to fall into a downtime).
   */
  readonly until: Date;
  /** The downtimes recorded so far, in any order. */
  readonly downtimes: readonly Downtime[];
  readonly catchUp: CatchUpPolicy;
  readonly catchUpLimit: number;
}

/** The ticks to fire now, the ticks passed over, and the schedule's next `next_run_at`. */
export interface DueFires {
  /** Ticks to fire, oldest first. */
  readonly fire: readonly Date[];
  /** Missed ticks the catch-up policy drops (recorded as skipped by the caller), oldest first. */
  readonly dropped: readonly Date[];
  /**
   * The first tick not decided: the schedule's new `next_run_at` (undefined: never again). It is
   * the input's `nextRunAt` when nothing could be decided yet.
   */
  readonly nextRunAt: Date | undefined;
}

/**
 * Decides which ticks in `[nextRunAt, until]` fire (decision 27). A tick that fell due while a
 * scheduler led fires, however late the pass. The ticks one downtime missed are decided together
 * by the catch-up policy: `none` fires none of them, `latest` the newest, `all` the newest
 * `catchUpLimit`, oldest first; the others within a window of `catchUpLimit + 1` are dropped.
 * A downtime that `until` falls into is left whole for a later pass, which sees all of its ticks,
 * and at most {@link MaxLedTicksPerPass} led ticks are decided at once.
 */
export function planDueFires(input: DueFiresInput): DueFires {
  const { schedule } = input;
  const start = input.nextRunAt.getTime();
  const downtimes = input.downtimes
    .filter((d) => d.until.getTime() > start)
    .sort((a, b) => a.until.getTime() - b.until.getTime());
  const until = horizon(input.until.getTime(), downtimes);
  if (until < start) return { fire: [], dropped: [], nextRunAt: input.nextRunAt };

  const fire: Date[] = [];
  const dropped: Date[] = [];
  let cursor = start;
  let budget = MaxLedTicksPerPass;
  /** Fires the led ticks in [cursor, end]; returns the first tick the budget left undecided. */
  const fireLed = (end: number): Date | undefined => {
    if (end < cursor) return undefined;
    const led = cronFiresBetween(schedule, new Date(cursor), new Date(end + 1), budget + 1);
    fire.push(...led.slice(0, budget));
    const over = led.length > budget ? led[budget] : undefined;
    budget -= Math.min(led.length, budget);
    return over;
  };

  for (const downtime of downtimes) {
    const from = downtime.from?.getTime() ?? -Infinity;
    if (from >= until) break;
    const undecided = fireLed(from);
    if (undecided) return { fire, dropped, nextRunAt: undecided };
    const missed = latestTicks(
      schedule,
      Math.max(cursor, from + 1),
      downtime.until.getTime(),
      Math.max(1, input.catchUpLimit) + 1,
    );
    const caughtUp = new Set(catchUpOf(missed, input.catchUp, input.catchUpLimit));
    for (const tick of missed) (caughtUp.has(tick) ? fire : dropped).push(tick);
    budget -= missed.length;
    cursor = downtime.until.getTime();
    if (budget <= 0) {
      // A tick at the downtime's end was led: the next pass starts there.
      return { fire, dropped, nextRunAt: nextCronFire(schedule, new Date(cursor - 1)) };
    }
  }
  const undecided = fireLed(until);
  return { fire, dropped, nextRunAt: undecided ?? nextCronFire(schedule, new Date(until)) };
}

/**
 * How far a pass may decide: `until`, unless it falls inside a downtime, whose ticks are decided
 * together once its end is known to the pass; then up to the downtime's start.
 */
function horizon(until: number, downtimes: readonly Downtime[]): number {
  for (const downtime of downtimes) {
    const from = downtime.from?.getTime() ?? -Infinity;
    if (from < until && until < downtime.until.getTime()) return from;
  }
  return until;
}

/** The missed ticks a catch-up policy fires, out of one downtime's `missed` (oldest first). */
function catchUpOf(missed: readonly Date[], policy: CatchUpPolicy, limit: number): Date[] {
  switch (policy) {
    case CatchUpPolicy.None:
      return [];
    case CatchUpPolicy.Latest:
      return missed.slice(-1);
    case CatchUpPolicy.All:
      return limit > 0 ? missed.slice(-limit) : [];
  }
}

/** The newest `count` ticks in `[from, to)`, oldest first, without enumerating a long gap whole. */
function latestTicks(schedule: CronSchedule, from: number, to: number, count: number): Date[] {
  // Counting back from `to` keeps the work bounded by `count`: a scheduler that was down for a
  // year on a per-second schedule must not walk through millions of ticks.
  return cronFiresBefore(schedule, new Date(to), count)
    .filter((tick) => tick.getTime() >= from)
    .reverse();
}
