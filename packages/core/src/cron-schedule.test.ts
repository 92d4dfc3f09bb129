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
