/**
 * Catch-up (decision 27): the ticks one downtime of the scheduler lease missed are decided together
 * by the schedule's policy; every other tick fires, however late the pass. Downtimes are written
 * on the test's clock, as taking the lease again writes them (see the fixture).
 */
import { describe, expect, it } from 'vitest';
import { plus, useSchedules } from './schedule-fixture.js';

const f = useSchedules();
const T0 = new Date('2026-06-01T12:00:00Z');
const MIN = 60_000;
const minute = (d: Date) => (d.getTime() - T0.getTime()) / MIN;

/** A per-minute schedule whose first unhandled tick is 12:01. */
async function declare(id: string, catchUp: 'none' | 'latest' | 'all', catchUpLimit?: number) {
  await f.client.schedule({
    id,
    cron: '* * * * *',
    kind: `${id}.job`,
    overlap: 'allow',
    catchUp,
    ...(catchUpLimit === undefined ? {} : { catchUpLimit }),
  });
  await f.startAt(id, T0);
}

/** What became of a schedule's ticks, by minute after 12:00. */
async function outcome(id: string) {
  const fires = (await f.client.listScheduleFires(id, { limit: 1_000 })).reverse();
  return {
    submitted: fires.filter((x) => x.outcome === 'submitted').map((x) => minute(x.fireAt)),
    skipped: fires.filter((x) => x.outcome === 'skipped').map((x) => minute(x.fireAt)),
    late: fires.filter((x) => x.late).map((x) => minute(x.fireAt)),
    runs: await f.countRuns(`${id}.job`),
  };
}

describe('the ticks one downtime missed', () => {
  // The scheduler led until its renewal at 12:00:30 and came back 0.4 s after the 12:03 tick:
  // 12:01, 12:02 and 12:03 fell in the downtime, however soon it came back.
  async function restart(id: string, catchUp: 'none' | 'latest' | 'all', catchUpLimit?: number) {
    await declare(id, catchUp, catchUpLimit);
    await f.downtime(plus(T0, 30_000), plus(T0, 3 * MIN + 400));
    f.clock.now = plus(T0, 3 * MIN + 500);
    await f.fire(f.scheduler());
    return outcome(id);
  }

  it("'none' creates no run, not even for the tick just before the restart", async () => {
    expect(await restart('cu-none', 'none')).toMatchObject({
      submitted: [],
      skipped: [1, 2, 3],
      runs: 0,
    });
  });

  it("'latest' (the default) creates exactly one, for the newest", async () => {
    expect(await restart('cu-latest', 'latest')).toEqual({
      submitted: [3],
      skipped: [1, 2],
      late: [1, 2], // handled more than 15 s after their tick
      runs: 1,
    });
  });

  it("'all' creates one per tick, the newest catchUpLimit of them", async () => {
    expect(await restart('cu-all', 'all')).toMatchObject({ submitted: [1, 2, 3], runs: 3 });
    expect(await restart('cu-all-2', 'all', 2)).toMatchObject({
      submitted: [2, 3],
      skipped: [1],
      runs: 2,
    });
  });

  it('ticks after the downtime fire as usual at the next passes', async () => {
    await restart('cu-after', 'latest');
    f.clock.now = plus(T0, 4 * MIN + 1_000);
    await f.fire(f.scheduler());
    expect(await outcome('cu-after')).toMatchObject({ submitted: [3, 4], runs: 2 });
  });
});

describe('ticks that fall due while a scheduler leads', () => {
  it('fire however late the pass, under every policy', async () => {
    await declare('led-late', 'none');
    f.clock.now = plus(T0, 11 * MIN + 1_000);
    await f.fire(f.scheduler());
    expect(await outcome('led-late')).toEqual({
      submitted: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
      skipped: [],
      late: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      runs: 11,
    });
  });

  it('fire around a downtime, which gets its one run under latest', async () => {
    await declare('led-around', 'latest');
    // Led until 12:02:30, down until 0.4 s after the 12:06 tick, led since.
    await f.downtime(plus(T0, 2 * MIN + 30_000), plus(T0, 6 * MIN + 400));
    f.clock.now = plus(T0, 8 * MIN + 1_000);
    await f.fire(f.scheduler());
    expect(await outcome('led-around')).toMatchObject({
      submitted: [1, 2, 6, 7, 8],
      skipped: [3, 4, 5],
    });
  });

  it('a pass whose clock falls inside a downtime leaves it whole to a later one, exactly once', async () => {
    await declare('frozen-clock', 'latest');
    await f.downtime(plus(T0, 30_000), plus(T0, 5 * MIN + 30_000));
    // A leader frozen with a clock from inside the downtime in hand decides none of it.
    f.clock.now = plus(T0, 3 * MIN + 10_000);
    await f.fire(f.scheduler());
    expect(await outcome('frozen-clock')).toMatchObject({ submitted: [], skipped: [] });
    // Two schedulers that see its end race over it: one run.
    f.clock.now = plus(T0, 5 * MIN + 40_000);
    const a = f.scheduler({ id: 'racer-a' });
    const b = f.scheduler({ id: 'racer-b' });
    await Promise.all([f.fire(a), f.fire(b), f.fire(a), f.fire(b)]);
    expect(await outcome('frozen-clock')).toMatchObject({
      submitted: [5],
      skipped: [1, 2, 3, 4],
      runs: 1,
    });
  });
});

describe('what never catches up', () => {
  const downtime = () => f.downtime(plus(T0, 30_000), plus(T0, 11 * MIN + 400));

  it('a schedule created during a downtime: only its own ticks count, and latest fires one', async () => {
    await f.client.schedule({ id: 'born-down', cron: '* * * * *', kind: 'born-down.job' });
    await f.startAt('born-down', plus(T0, 5 * MIN + 10_000)); // created at 12:05:10
    await downtime();
    f.clock.now = plus(T0, 11 * MIN + 1_000);
    await f.fire(f.scheduler());
    expect(await outcome('born-down')).toMatchObject({
      submitted: [11],
      skipped: [6, 7, 8, 9, 10],
      runs: 1,
    });
  });

  it('resuming a schedule paused across a downtime starts at its next tick, with no run', async () => {
    await declare('paused-down', 'all');
    await f.client.pauseSchedule('paused-down');
    await downtime();
    f.clock.now = plus(T0, 11 * MIN + 1_000);
    const s = f.scheduler();
    await f.fire(s);
    const before = await f.store.databaseNow();
    const resumed = await f.client.resumeSchedule('paused-down');
    expect(resumed.nextRunAt!.getTime()).toBeGreaterThan(before.getTime());
    await f.fire(s);
    expect(await outcome('paused-down')).toEqual({ submitted: [], skipped: [], late: [], runs: 0 });
  });

  it('backfill runs the ticks a downtime dropped, each once, and the scanner repeats none', async () => {
    await declare('refill', 'latest');
    await downtime();
    f.clock.now = plus(T0, 11 * MIN + 1_000);
    const s = f.scheduler();
    await f.fire(s);
    const range = { from: plus(T0, MIN), to: plus(T0, 12 * MIN) };
    expect(await f.client.backfill('refill', range)).toEqual({ created: 10, skipped: 1 });
    expect(await f.client.backfill('refill', range)).toEqual({ created: 0, skipped: 11 });
    await f.fire(s);
    expect(await outcome('refill')).toMatchObject({
      submitted: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
      runs: 11,
    });
  });

  it('ticks backfilled before the scanner saw the downtime are not fired again', async () => {
    await declare('refill-first', 'latest');
    await f.downtime(plus(T0, 30_000), plus(T0, 5 * MIN + 400));
    await f.client.backfill('refill-first', { from: plus(T0, 3 * MIN), to: plus(T0, 6 * MIN) });
    f.clock.now = plus(T0, 5 * MIN + 1_000);
    await f.fire(f.scheduler());
    // The downtime's newest tick (12:05) has its run from the backfill: no second one.
    expect(await outcome('refill-first')).toMatchObject({
      submitted: [3, 4, 5],
      skipped: [1, 2],
      runs: 3,
    });
  });
});
