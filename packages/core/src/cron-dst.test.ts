/**
 * Daylight-saving time (decision 26): fixed-time schedules fire a local time once, interval
 * schedules keep their pace in real time, and every way of enumerating ticks agrees on it.
 */
import { describe, expect, it } from 'vitest';
import {
  cronFiresBefore,
  cronFiresBetween,
  isFixedTimeCron,
  nextCronFire,
  parseCronSchedule,
} from './cron-schedule.js';
import { CatchUpPolicy, planDueFires } from './schedule-policy.js';

const utc = (iso: string) => new Date(iso);

describe('fixed-time and interval schedules', () => {
  it.each([
    ['30 2 * * *', true],
    ['30 1-2 * * *', true],
    ['30 1,2 * * *', true],
    ['0 30 1-2 * * *', true],
    ['0 * * * *', false],
    ['*/15 * * * *', false],
    ['*/20 1 * * *', false],
    ['0 0-23/2 * * *', false],
    ['*/10 * * * * *', false],
  ])('%s is fixed-time: %s', (cron, fixed) => {
    expect(isFixedTimeCron(parseCronSchedule(cron, 'Europe/Berlin'))).toBe(fixed);
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

/**
 * Every transition of 2026 in three zones, with a `*`, a step and a range in the hour or minute
 * field: the local times (with their UTC offsets) each schedule fires at in the UTC range
 * [from, to), worked out by hand from the zone's rules.
 */
const transitions = [
  // America/New_York falls back on 1 November (02:00 EDT -> 01:00 EST).
  {
    cron: '0 * * * *',
    zone: 'America/New_York',
    from: '2026-11-01T04:00Z',
    to: '2026-11-01T08:00Z',
    local: '00:00 -04:00, 01:00 -04:00, 01:00 -05:00, 02:00 -05:00',
  },
  {
    cron: '*/15 * * * *',
    zone: 'America/New_York',
    from: '2026-11-01T05:00Z',
    to: '2026-11-01T07:00Z',
    local:
      '01:00 -04:00, 01:15 -04:00, 01:30 -04:00, 01:45 -04:00, 01:00 -05:00, 01:15 -05:00, 01:30 -05:00, 01:45 -05:00',
  },
  {
    cron: '*/20 1 * * *',
    zone: 'America/New_York',
    from: '2026-11-01T04:00Z',
    to: '2026-11-01T09:00Z',
    local: '01:00 -04:00, 01:20 -04:00, 01:40 -04:00, 01:00 -05:00, 01:20 -05:00, 01:40 -05:00',
  },
  {
    cron: '30 1-2 * * *',
    zone: 'America/New_York',
    from: '2026-11-01T04:00Z',
    to: '2026-11-01T09:00Z',
    local: '01:30 -04:00, 02:30 -05:00',
  },
  {
    cron: '0 0-23/2 * * *',
    zone: 'America/New_York',
    from: '2026-11-01T04:00Z',
    to: '2026-11-01T09:00Z',
    local: '00:00 -04:00, 02:00 -05:00',
  },
  // ... and springs forward on 8 March (02:00 EST -> 03:00 EDT).
  {
    cron: '0 * * * *',
    zone: 'America/New_York',
    from: '2026-03-08T05:00Z',
    to: '2026-03-08T08:00Z',
    local: '00:00 -05:00, 01:00 -05:00, 03:00 -04:00',
  },
  {
    cron: '*/15 * * * *',
    zone: 'America/New_York',
    from: '2026-03-08T06:00Z',
    to: '2026-03-08T07:30Z',
    local: '01:00 -05:00, 01:15 -05:00, 01:30 -05:00, 01:45 -05:00, 03:00 -04:00, 03:15 -04:00',
  },
  {
    cron: '30 1-2 * * *',
    zone: 'America/New_York',
    from: '2026-03-08T05:00Z',
    to: '2026-03-08T09:00Z',
    local: '01:30 -05:00, 03:00 -04:00',
  },
  {
    cron: '0 0-23/2 * * *',
    zone: 'America/New_York',
    from: '2026-03-08T05:00Z',
    to: '2026-03-08T09:00Z',
    local: '00:00 -05:00, 04:00 -04:00',
  },
  // Europe/Berlin falls back on 25 October (03:00 CEST -> 02:00 CET).
  {
    cron: '0 * * * *',
    zone: 'Europe/Berlin',
    from: '2026-10-24T23:00Z',
    to: '2026-10-25T03:00Z',
    local: '01:00 +02:00, 02:00 +02:00, 02:00 +01:00, 03:00 +01:00',
  },
  {
    cron: '*/15 * * * *',
    zone: 'Europe/Berlin',
    from: '2026-10-25T00:00Z',
    to: '2026-10-25T02:00Z',
    local:
      '02:00 +02:00, 02:15 +02:00, 02:30 +02:00, 02:45 +02:00, 02:00 +01:00, 02:15 +01:00, 02:30 +01:00, 02:45 +01:00',
  },
  {
    cron: '30 2-3 * * *',
    zone: 'Europe/Berlin',
    from: '2026-10-24T23:00Z',
    to: '2026-10-25T03:00Z',
    local: '02:30 +02:00, 03:30 +01:00',
  },
  // ... and springs forward on 29 March (02:00 CET -> 03:00 CEST).
  {
    cron: '0 * * * *',
    zone: 'Europe/Berlin',
    from: '2026-03-29T00:00Z',
    to: '2026-03-29T03:00Z',
    local: '01:00 +01:00, 03:00 +02:00, 04:00 +02:00',
  },
  {
    cron: '*/15 * * * *',
    zone: 'Europe/Berlin',
    from: '2026-03-29T00:30Z',
    to: '2026-03-29T01:30Z',
    local: '01:30 +01:00, 01:45 +01:00, 03:00 +02:00, 03:15 +02:00',
  },
  {
    cron: '30 2-3 * * *',
    zone: 'Europe/Berlin',
    from: '2026-03-29T00:00Z',
    to: '2026-03-29T03:00Z',
    local: '03:00 +02:00, 03:30 +02:00',
  },
  // Australia/Lord_Howe moves by 30 minutes: back on 5 April (02:00 +11 -> 01:30 +10:30) ...
  {
    cron: '0 * * * *',
    zone: 'Australia/Lord_Howe',
    from: '2026-04-04T13:00Z',
    to: '2026-04-04T16:00Z',
    local: '00:00 +11:00, 01:00 +11:00, 02:00 +10:30',
  },
  {
    cron: '*/15 * * * *',
    zone: 'Australia/Lord_Howe',
    from: '2026-04-04T14:00Z',
    to: '2026-04-04T15:30Z',
    local: '01:00 +11:00, 01:15 +11:00, 01:30 +11:00, 01:45 +11:00, 01:30 +10:30, 01:45 +10:30',
  },
  {
    cron: '*/30 1 * * *',
    zone: 'Australia/Lord_Howe',
    from: '2026-04-04T13:00Z',
    to: '2026-04-04T16:30Z',
    local: '01:00 +11:00, 01:30 +11:00, 01:30 +10:30',
  },
  {
    cron: '30 1-2 * * *',
    zone: 'Australia/Lord_Howe',
    from: '2026-04-04T13:00Z',
    to: '2026-04-04T16:30Z',
    local: '01:30 +11:00, 02:30 +10:30',
  },
  // ... and forward on 4 October (02:00 +10:30 -> 02:30 +11).
  {
    cron: '0 * * * *',
    zone: 'Australia/Lord_Howe',
    from: '2026-10-03T14:00Z',
    to: '2026-10-03T16:30Z',
    local: '01:00 +10:30, 03:00 +11:00',
  },
  {
    cron: '*/15 * * * *',
    zone: 'Australia/Lord_Howe',
    from: '2026-10-03T14:30Z',
    to: '2026-10-03T16:00Z',
    local: '01:00 +10:30, 01:15 +10:30, 01:30 +10:30, 01:45 +10:30, 02:30 +11:00, 02:45 +11:00',
  },
  {
    cron: '15 1-2 * * *',
    zone: 'Australia/Lord_Howe',
    from: '2026-10-03T13:00Z',
    to: '2026-10-03T17:00Z',
    local: '01:15 +10:30, 02:30 +11:00',
  },
  {
    cron: '0 2 * * *',
    zone: 'Australia/Lord_Howe',
    from: '2026-10-03T13:00Z',
    to: '2026-10-03T17:00Z',
    local: '02:30 +11:00',
  },
];

function localTimes(zone: string, fires: readonly Date[]): string {
  const format = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  });
  return fires.map((fire) => format.format(fire).replace(' GMT', ' ')).join(', ');
}

describe('the transitions of 2026 in New York, Berlin and Lord Howe: *, steps and ranges', () => {
  it.each(transitions)('$cron in $zone over [$from, $to)', ({ cron, zone, from, to, local }) => {
    const fires = cronFiresBetween(parseCronSchedule(cron, zone), utc(from), utc(to));
    expect(localTimes(zone, fires)).toBe(local);
  });

  it.each(transitions)(
    '$cron in $zone: nextCronFire, the ticks counted back and the planner agree',
    ({ cron, zone, from, to }) => {
      const schedule = parseCronSchedule(cron, zone);
      const forward = cronFiresBetween(schedule, utc(from), utc(to));
      // One tick at a time, as the scanner advances next_run_at.
      const chained: Date[] = [];
      for (let t = nextCronFire(schedule, new Date(utc(from).getTime() - 1)); t && t < utc(to);) {
        chained.push(t);
        t = nextCronFire(schedule, t);
      }
      expect(chained).toEqual(forward);
      // Counted back from the end, as the planner finds the newest ticks of a downtime.
      const back = cronFiresBefore(schedule, utc(to), forward.length + 1)
        .filter((t) => t >= utc(from))
        .reverse();
      expect(back).toEqual(forward);
      // A pass over the whole range while a scheduler led fires exactly these ticks...
      const led = planDueFires({
        schedule,
        nextRunAt: utc(from),
        until: new Date(utc(to).getTime() - 1),
        downtimes: [],
        catchUp: CatchUpPolicy.None,
        catchUpLimit: 100,
      });
      expect(led.fire).toEqual(forward);
      // ... and a downtime over all of it under 'all' fires them too, as missed ticks (with a
      // tick at its end, which was led).
      const missed = planDueFires({
        schedule,
        nextRunAt: utc(from),
        until: utc(to),
        downtimes: [{ from: new Date(utc(from).getTime() - 1), until: utc(to) }],
        catchUp: CatchUpPolicy.All,
        catchUpLimit: 100,
      });
      expect(missed.fire.filter((t) => t < utc(to))).toEqual(forward);
      expect(missed.dropped).toEqual([]);
    },
  );
});
