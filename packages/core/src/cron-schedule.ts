/**
 * Cron expressions: validated once, at `client.schedule()`, and evaluated by the scheduler. Parsing
 * and fire-time arithmetic (time zones, daylight-saving transitions) come from croner; this module
 * fixes which expressions Cyclone accepts, which of them are fixed-time schedules across a
 * daylight-saving transition (decision 26), and how fire times are enumerated. Every function here
 * reads an expression the same way, so forward and backward enumerations give the same ticks.
 *
 * @packageDocumentation
 */
import { Cron, CronPattern, type CronFixedTimeRule, type CronMode } from 'croner';
import { ValidationError } from './errors.js';

/** A cron expression with the time zone its fields are read in, known to be valid. */
export interface CronSchedule {
  /** The expression as given: 5 fields, or 6 with seconds first. */
  readonly cron: string;
  /** An IANA time zone name, e.g. `'Europe/Berlin'`. */
  readonly timezone: string;
}

/** The time zone of a schedule that names none. */
export const DefaultScheduleTimezone = 'UTC';

/** Most fire times one call of {@link cronFiresBetween} returns, whatever the range. */
export const MaxFiresPerCall = 10_000;

const FIELDS_HINT =
  "5 fields ('minute hour day-of-month month day-of-week', e.g. '30 2 * * *') or 6 with seconds first ('0 */5 * * * *')";

/** Whether `name` is an IANA time zone this runtime knows. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * Validates a cron expression and its time zone.
 *
 * @param where - the option's path, named in the error (e.g. `'cron'`)
 * @throws ValidationError naming the expression or the time zone when either is invalid
 */
export function parseCronSchedule(
  cron: unknown,
  timezone: unknown = DefaultScheduleTimezone,
  where = 'cron',
): CronSchedule {
  const tzPath = where === 'cron' ? 'timezone' : `${where}.timezone`;
  if (typeof timezone !== 'string' || !isTimeZone(timezone)) {
    throw new ValidationError('schedule', [
      {
        path: tzPath,
        message: `expected an IANA time zone name such as 'UTC' or 'America/New_York', got ${JSON.stringify(timezone)}`,
      },
    ]);
  }
  if (typeof cron !== 'string') {
    throw new ValidationError('schedule', [
      { path: where, message: `expected a cron expression of ${FIELDS_HINT}, got ${typeof cron}` },
    ]);
  }
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    throw new ValidationError('schedule', [
      {
        path: where,
        message: `expected ${FIELDS_HINT}, got ${fields.length} field${fields.length === 1 ? '' : 's'} in ${JSON.stringify(cron)}`,
      },
    ]);
  }
  try {
    compile({ cron, timezone });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : '';
    throw new ValidationError('schedule', [
      { path: where, message: `invalid cron expression ${JSON.stringify(cron)}: ${reason}` },
    ]);
  }
  return { cron, timezone };
}

/** How croner reads every expression: 5 or 6 fields, and Vixie cron's fixed-time jobs (decision 26). */
const PATTERN_OPTIONS: { mode: CronMode; fixedTimeRule: CronFixedTimeRule } = {
  mode: '5-or-6-parts',
  // Lists and ranges are fixed times, as in Vixie cron; croner's default counts them as intervals.
  fixedTimeRule: 'no-wildcard',
};

function compile(schedule: CronSchedule): Cron {
  return new Cron(schedule.cron, { timezone: schedule.timezone, paused: true, ...PATTERN_OPTIONS });
}

/**
 * Whether a schedule is a fixed-time schedule for daylight-saving transitions: its seconds,
 * minutes and hours are each a value, a list or a range (`30 2 * * *`, `30 1-2 * * *`). A `*`, `?`
 * or step in any of them (`0 * * * *`, `0 0-23/2 * * *`) makes it an interval schedule.
 */
export function isFixedTimeCron(schedule: CronSchedule): boolean {
  return new CronPattern(schedule.cron, schedule.timezone, PATTERN_OPTIONS).isFixedTime;
}

/**
 * The first fire time strictly after `after`, or undefined when the expression never fires again.
 *
 * Daylight-saving transitions follow Vixie cron's rule (decision 26). A fixed-time schedule (see
 * {@link isFixedTimeCron}) fires a local time that a spring-forward skips once, at the first valid
 * time after the gap, and a local time that a fall-back repeats once, at its first occurrence. An
 * interval schedule keeps its pace in real time: a local time the clock skips does not fire, and a
 * repeated one fires at both occurrences (`0 * * * *` in America/New_York fires at 01:00 EDT and
 * at 01:00 EST on the fall-back day).
 */
export function nextCronFire(schedule: CronSchedule, after: Date): Date | undefined {
  return compile(schedule).nextRun(after) ?? undefined;
}

/**
 * Every fire time in `[from, to)`, oldest first, at most `limit` of them (and never more than
 * {@link MaxFiresPerCall}).
 */
export function cronFiresBetween(
  schedule: CronSchedule,
  from: Date,
  to: Date,
  limit = MaxFiresPerCall,
): Date[] {
  const job = compile(schedule);
  const fires: Date[] = [];
  const cap = Math.min(limit, MaxFiresPerCall);
  // nextRun is strictly after its argument: start one millisecond early so `from` itself counts.
  let cursor: Date | null = new Date(from.getTime() - 1);
  while (fires.length < cap) {
    cursor = job.nextRun(cursor);
    if (!cursor || cursor.getTime() >= to.getTime()) break;
    fires.push(cursor);
  }
  return fires;
}

/** The newest `count` fire times strictly before `before`, newest first. */
export function cronFiresBefore(schedule: CronSchedule, before: Date, count: number): Date[] {
  return compile(schedule).previousRuns(Math.min(count, MaxFiresPerCall), before);
}
