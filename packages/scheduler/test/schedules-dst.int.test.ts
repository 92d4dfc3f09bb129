/**
 * Daylight-saving time through the scanner (decision 26): a fixed-time schedule fires a local time
 * once, an interval schedule keeps its pace in real time, across both transitions of 2026 in
 * New York, Berlin and Lord Howe (a 30-minute shift). The test's clock walks forward with a pass
 * at each step, as a running scheduler would.
 */
import { describe, expect, it } from 'vitest';
import { plus, useSchedules } from './schedule-fixture.js';

const f = useSchedules();
const MIN = 60_000;

/** The ticks a schedule fired while the clock walked over [from, to) in `stepMin` steps. */
async function walk(
  id: string,
  cron: string,
  timezone: string,
  from: string,
  to: string,
  stepMin: number,
): Promise<Date[]> {
  await f.client.schedule({ id, cron, timezone, kind: `${id}.job`, overlap: 'allow' });
  await f.startAt(id, new Date(new Date(from).getTime() - 1));
  const s = f.scheduler();
  for (
    let now = plus(new Date(from), stepMin * MIN);
    now < new Date(to);
    now = plus(now, stepMin * MIN)
  ) {
    f.clock.now = now;
    await f.fire(s);
  }
  f.clock.now = new Date(new Date(to).getTime() - 1);
  await f.fire(s);
  const fires = await f.client.listScheduleFires(id, { limit: 1_000 });
  expect(fires.every((x) => x.outcome === 'submitted')).toBe(true);
  return fires.map((x) => x.fireAt).reverse();
}

/** Local times with their UTC offsets, e.g. `01:30 -04:00`. */
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

describe('fixed-time schedules fire a local time once', () => {
  it('30 2 * * * in America/New_York fires once on the spring-forward day', async () => {
    const fires = await walk(
      'spring',
      '30 2 * * *',
      'America/New_York',
      '2026-03-07T00:00Z',
      '2026-03-10T00:00Z',
      20,
    );
    expect(fires.map((d) => d.toISOString())).toEqual([
      '2026-03-07T07:30:00.000Z', // 02:30 EST
      '2026-03-08T07:00:00.000Z', // 02:30 does not exist: once, at 03:00 EDT
      '2026-03-09T06:30:00.000Z', // 02:30 EDT
    ]);
  });

  it('30 2 * * * in America/New_York fires once on the fall-back day', async () => {
    const fires = await walk(
      'fall',
      '30 2 * * *',
      'America/New_York',
      '2026-10-31T00:00Z',
      '2026-11-03T00:00Z',
      20,
    );
    expect(fires.map((d) => d.toISOString())).toEqual([
      '2026-10-31T06:30:00.000Z', // 02:30 EDT
      '2026-11-01T07:30:00.000Z', // 02:30 EST, the only 02:30 of the day
      '2026-11-02T07:30:00.000Z',
    ]);
  });
});

describe('*, steps and ranges across the transitions of 2026', () => {
  it.each([
    // America/New_York: back on 1 November, forward on 8 March.
    [
      '0 * * * *',
      'America/New_York',
      '2026-11-01T04:00Z',
      '2026-11-01T08:00Z',
      '00:00 -04:00, 01:00 -04:00, 01:00 -05:00, 02:00 -05:00',
    ],
    [
      '*/15 * * * *',
      'America/New_York',
      '2026-11-01T05:00Z',
      '2026-11-01T07:00Z',
      '01:00 -04:00, 01:15 -04:00, 01:30 -04:00, 01:45 -04:00, 01:00 -05:00, 01:15 -05:00, 01:30 -05:00, 01:45 -05:00',
    ],
    [
      '30 1-2 * * *',
      'America/New_York',
      '2026-11-01T04:00Z',
      '2026-11-01T09:00Z',
      '01:30 -04:00, 02:30 -05:00',
    ],
    [
      '*/15 * * * *',
      'America/New_York',
      '2026-03-08T06:00Z',
      '2026-03-08T07:30Z',
      '01:00 -05:00, 01:15 -05:00, 01:30 -05:00, 01:45 -05:00, 03:00 -04:00, 03:15 -04:00',
    ],
    [
      '30 1-2 * * *',
      'America/New_York',
      '2026-03-08T05:00Z',
      '2026-03-08T09:00Z',
      '01:30 -05:00, 03:00 -04:00',
    ],
    // Europe/Berlin: back on 25 October, forward on 29 March.
    [
      '*/15 * * * *',
      'Europe/Berlin',
      '2026-10-25T00:00Z',
      '2026-10-25T02:00Z',
      '02:00 +02:00, 02:15 +02:00, 02:30 +02:00, 02:45 +02:00, 02:00 +01:00, 02:15 +01:00, 02:30 +01:00, 02:45 +01:00',
    ],
    [
      '30 2-3 * * *',
      'Europe/Berlin',
      '2026-10-24T23:00Z',
      '2026-10-25T03:00Z',
      '02:30 +02:00, 03:30 +01:00',
    ],
    [
      '0 * * * *',
      'Europe/Berlin',
      '2026-03-29T00:00Z',
      '2026-03-29T03:00Z',
      '01:00 +01:00, 03:00 +02:00, 04:00 +02:00',
    ],
    // Australia/Lord_Howe: back by 30 minutes on 5 April, forward on 4 October.
    [
      '*/15 * * * *',
      'Australia/Lord_Howe',
      '2026-04-04T14:00Z',
      '2026-04-04T15:30Z',
      '01:00 +11:00, 01:15 +11:00, 01:30 +11:00, 01:45 +11:00, 01:30 +10:30, 01:45 +10:30',
    ],
    [
      '30 1-2 * * *',
      'Australia/Lord_Howe',
      '2026-04-04T13:00Z',
      '2026-04-04T16:30Z',
      '01:30 +11:00, 02:30 +10:30',
    ],
    [
      '*/15 * * * *',
      'Australia/Lord_Howe',
      '2026-10-03T14:30Z',
      '2026-10-03T16:00Z',
      '01:00 +10:30, 01:15 +10:30, 01:30 +10:30, 01:45 +10:30, 02:30 +11:00, 02:45 +11:00',
    ],
    ['0 2 * * *', 'Australia/Lord_Howe', '2026-10-03T13:00Z', '2026-10-03T17:00Z', '02:30 +11:00'],
  ])('%s in %s over [%s, %s)', async (cron, zone, from, to, local) => {
    const id = `dst-${cron}-${zone}-${from}`.replace(/[^a-zA-Z0-9-]/g, '-');
    expect(localTimes(zone, await walk(id, cron, zone, from, to, 7))).toBe(local);
  });
});

describe('a downtime across a transition', () => {
  it('is one downtime: latest fires one run, for its newest tick (01:45 EST)', async () => {
    const id = 'dst-down';
    await f.client.schedule({ id, cron: '*/15 * * * *', timezone: 'America/New_York', kind: id });
    await f.startAt(id, new Date('2026-11-01T04:59:59Z'));
    // Down from 00:59:30 EDT to 01:50 EST: both passes through 01:00-01:45.
    await f.downtime(new Date('2026-11-01T04:59:30Z'), new Date('2026-11-01T06:50:00Z'));
    f.clock.now = new Date('2026-11-01T06:50:01Z');
    await f.fire(f.scheduler());
    const fires = (await f.client.listScheduleFires(id, { limit: 100 })).reverse();
    const zone = 'America/New_York';
    expect(
      localTimes(
        zone,
        fires.filter((x) => x.outcome === 'submitted').map((x) => x.fireAt),
      ),
    ).toBe('01:45 -05:00');
    expect(
      localTimes(
        zone,
        fires.filter((x) => x.outcome === 'skipped').map((x) => x.fireAt),
      ),
    ).toBe(
      '01:00 -04:00, 01:15 -04:00, 01:30 -04:00, 01:45 -04:00, 01:00 -05:00, 01:15 -05:00, 01:30 -05:00',
    );
  });
});
