import { describe, expect, it } from 'vitest';
import {
  cronFiresBefore,
  cronFiresBetween,
  isTimeZone,
  nextCronFire,
  parseCronSchedule,
} from './cron-schedule.js';
import { ValidationError } from './errors.js';

const utc = (iso: string) => new Date(iso);
const iso = (dates: readonly Date[]) => dates.map((d) => d.toISOString());

function issuesOf(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues;
  }
  throw new Error('expected a ValidationError');
}

describe('parseCronSchedule', () => {
  it('accepts five fields, and six with seconds first', () => {
    expect(parseCronSchedule('30 2 * * *')).toEqual({ cron: '30 2 * * *', timezone: 'UTC' });
    expect(parseCronSchedule('*/5 * * * * *', 'Europe/Berlin').timezone).toBe('Europe/Berlin');
  });

  it.each([
    ['* * *', /3 fields/],
    ['* * * * * * *', /7 fields/],
    ['', /1 field/],
    ['61 * * * *', /invalid cron expression/],
    ['* * * * mon-xyz', /invalid cron expression/],
  ])('refuses %j, naming the cron option', (cron, message) => {
    const issues = issuesOf(() => parseCronSchedule(cron));
    expect(issues[0]?.path).toBe('cron');
    expect(issues[0]?.message).toMatch(message);
  });

  it('refuses an unknown time zone, naming it', () => {
    const issues = issuesOf(() => parseCronSchedule('* * * * *', 'Mars/Olympus_Mons'));
    expect(issues[0]?.path).toBe('timezone');
    expect(issues[0]?.message).toContain('Mars/Olympus_Mons');
    expect(isTimeZone('America/New_York')).toBe(true);
  });

  it('refuses a cron that is not a string', () => {
    expect(issuesOf(() => parseCronSchedule(5))[0]?.message).toMatch(/got number/);
  });
});

describe('fire times', () => {
  const every10s = parseCronSchedule('*/10 * * * * *');

  it('lists the ticks of [from, to), the start included and the end excluded', () => {
    const fires = cronFiresBetween(
      every10s,
      utc('2026-01-01T00:00:00Z'),
      utc('2026-01-01T00:00:30Z'),
    );
    expect(iso(fires)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:10.000Z',
      '2026-01-01T00:00:20.000Z',
    ]);
  });

  it('stops at the limit', () => {
    const fires = cronFiresBetween(every10s, utc('2026-01-01T00:00:00Z'), utc('2027-01-01Z'), 4);
    expect(fires).toHaveLength(4);
  });

  it('gives the next tick strictly after a time, and the ticks before one, newest first', () => {
    expect(nextCronFire(every10s, utc('2026-01-01T00:00:10Z'))?.toISOString()).toBe(
      '2026-01-01T00:00:20.000Z',
    );
    expect(iso(cronFiresBefore(every10s, utc('2026-01-01T00:00:20Z'), 2))).toEqual([
      '2026-01-01T00:00:10.000Z',
      '2026-01-01T00:00:00.000Z',
    ]);
  });

  it('reads the fields in the schedule time zone', () => {
    const berlin = parseCronSchedule('0 9 * * *', 'Europe/Berlin');
    expect(nextCronFire(berlin, utc('2026-01-10T00:00:00Z'))?.toISOString()).toBe(
      '2026-01-10T08:00:00.000Z',
    );
    expect(nextCronFire(berlin, utc('2026-07-10T00:00:00Z'))?.toISOString()).toBe(
      '2026-07-10T07:00:00.000Z',
    );
  });
});

describe('daylight-saving transitions (America/New_York, 2026)', () => {
  /** Fires per local calendar day over a few days around a transition. */
  function firesPerLocalDay(cron: string, from: string, to: string): Record<string, number> {
    const schedule = parseCronSchedule(cron, 'America/New_York');
    const days: Record<string, number> = {};
    const local = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' });
    for (const fire of cronFiresBetween(schedule, utc(from), utc(to))) {
      const day = local.format(fire);
      days[day] = (days[day] ?? 0) + 1;
    }
    return days;
  }

  it('fires 02:30 once on the spring-forward day, at the first valid time after the gap', () => {
    expect(firesPerLocalDay('30 2 * * *', '2026-03-07T05:00:00Z', '2026-03-10T05:00:00Z')).toEqual({
      '2026-03-07': 1,
      '2026-03-08': 1,
      '2026-03-09': 1,
    });
    const schedule = parseCronSchedule('30 2 * * *', 'America/New_York');
    // 02:30 does not exist on 8 March; 03:00 EDT is 07:00 UTC.
    expect(nextCronFire(schedule, utc('2026-03-08T05:00:00Z'))?.toISOString()).toBe(
      '2026-03-08T07:00:00.000Z',
    );
  });

  it('fires 02:30 once on the fall-back day', () => {
    expect(firesPerLocalDay('30 2 * * *', '2026-10-31T04:00:00Z', '2026-11-03T05:00:00Z')).toEqual({
      '2026-10-31': 1,
      '2026-11-01': 1,
      '2026-11-02': 1,
    });
  });

  it('fires a repeated local time (01:30 on the fall-back day) once, at its first occurrence', () => {
    expect(firesPerLocalDay('30 1 * * *', '2026-10-31T04:00:00Z', '2026-11-03T05:00:00Z')).toEqual({
      '2026-10-31': 1,
      '2026-11-01': 1,
      '2026-11-02': 1,
    });
    const schedule = parseCronSchedule('30 1 * * *', 'America/New_York');
    // 01:30 EDT (05:30 UTC) comes first; 01:30 EST (06:30 UTC) an hour later does not fire.
    expect(nextCronFire(schedule, utc('2026-11-01T04:00:00Z'))?.toISOString()).toBe(
      '2026-11-01T05:30:00.000Z',
    );
  });
});
