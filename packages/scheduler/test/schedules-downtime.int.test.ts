/**
 * Downtimes on the database's clock: schedulers elect, stop, stall and take over for real, with
 * per-second schedules and a 100 ms interval (a 500 ms lease). The assertions hold whatever the
 * timing: they read the gap the taking scheduler recorded and check each tick against it.
 */
import { describe, expect, it } from 'vitest';
import { until, useSchedules } from './schedule-fixture.js';

const f = useSchedules();
const POLICIES = [
  ['rt-none', 'none'],
  ['rt-latest', 'latest'],
  ['rt-all', 'all'],
] as const;

/** A scheduler on the database's clock, electing every 100 ms. */
const realScheduler = (id: string, scheduleClock?: () => Promise<Date>) =>
  f.scheduler({ id, interval: '100ms', scheduleClock });

async function declare(prefix: string): Promise<void> {
  for (const [id, catchUp] of POLICIES) {
    await f.client.schedule({
      id: `${prefix}-${id}`,
      cron: '* * * * * *',
      kind: `${prefix}-${id}.job`,
      overlap: 'allow',
      catchUp,
      catchUpLimit: 2,
    });
  }
}

/** Whether every schedule of `prefix` has a fire for a tick at or after `at`. */
async function firedSince(prefix: string, at: Date): Promise<boolean> {
  const rows = await f.query<{ n: number }>(
    `SELECT count(DISTINCT schedule_id)::int AS n FROM cyclone_schedule_fires
     WHERE schedule_id LIKE $1 AND fire_at >= $2`,
    [`${prefix}-%`, at],
  );
  return rows[0]!.n === POLICIES.length;
}

type Gap = { started_at: Date; ended_at: Date };

/** The gaps recorded after `after`, oldest first: the downtimes taking schedulers saw. */
async function gapsAfter(after: Date): Promise<Gap[]> {
  return f.query<Gap>(
    `SELECT started_at, ended_at FROM cyclone_leader_gaps WHERE name = 'scheduler'
     AND ended_at > $1 ORDER BY ended_at`,
    [after],
  );
}

/** The gap recorded after `after`: the downtime a taking scheduler saw. */
async function gapAfter(after: Date): Promise<Gap> {
  const [gap] = await gapsAfter(after);
  return gap!;
}

/**
 * Checks each schedule's ticks against every downtime recorded since the test began: inside each
 * the policy's runs and no more, outside all of them every tick submitted, and one run per
 * submitted fire. A loaded machine can stall a leader past its lease besides the downtime a test
 * makes on purpose; such a gap is decided by the same policy, so it is checked, not ignored.
 */
async function expectCaughtUpByPolicy(prefix: string, gaps: Gap[]): Promise<void> {
  const inGap = (gap: Gap) => (t: Date) => t > gap.started_at && t < gap.ended_at;
  for (const [id, catchUp] of POLICIES) {
    const fires = (await f.client.listScheduleFires(`${prefix}-${id}`, { limit: 1_000 })).reverse();
    const led = fires.filter((x) => !gaps.some((gap) => inGap(gap)(x.fireAt)));
    expect(
      led.filter((x) => x.outcome !== 'submitted'),
      `${id}: led ticks fire (gaps ${JSON.stringify(gaps)})`,
    ).toEqual([]);
    for (const gap of gaps) {
      // A downtime's rows are its newest catchUpLimit + 1 ticks (three here): the policy's runs
      // are the newest of them.
      const missed = fires.filter((x) => inGap(gap)(x.fireAt));
      const submittedInGap = missed.filter((x) => x.outcome === 'submitted').map((x) => x.fireAt);
      const newest = missed.map((x) => x.fireAt).slice(-2);
      const expected = { none: [], latest: newest.slice(-1), all: newest }[catchUp];
      expect(submittedInGap, `${id}: the downtime's runs`).toEqual(expected);
    }
    expect(await f.countRuns(`${prefix}-${id}.job`)).toBe(
      fires.filter((x) => x.outcome === 'submitted').length,
    );
  }
}

/** Waits until the database's clock is `ms` past `from`. */
async function databaseClockPast(from: Date, ms: number): Promise<void> {
  await until(
    async () => (await f.store.databaseNow()).getTime() >= from.getTime() + ms,
    `the database clock to pass ${ms} ms`,
  );
}

describe('downtimes of real schedulers', () => {
  it('a scheduler stopped while ticks pass: the next one records the downtime and catches up by policy', async () => {
    const began = await f.store.databaseNow();
    const a = realScheduler('down-a');
    await a.start();
    await declare('stop');
    await until(() => firedSince('stop', new Date(0)), 'the first leader to fire');
    await a.stop();
    const stoppedAt = await f.store.databaseNow();
    await databaseClockPast(stoppedAt, 3_200); // three ticks or more with no scheduler

    const b = realScheduler('down-b');
    await b.start();
    const gap = await gapAfter(stoppedAt);
    await until(() => firedSince('stop', gap.ended_at), 'the next leader to fire past the gap');
    await b.stop();
    expect(gap.ended_at.getTime() - gap.started_at.getTime()).toBeGreaterThanOrEqual(3_200);
    await expectCaughtUpByPolicy('stop', await gapsAfter(began));
  });

  it('a leader frozen in its pass past its lease: the gap is decided once, and its late pass adds nothing', async () => {
    const began = await f.store.databaseNow();
    let freeze = false;
    let thaw!: () => void;
    const frozen = new Promise<void>((resolve) => (thaw = resolve));
    // A reads its clock, then (once frozen) holds it while its lease lapses.
    const a = realScheduler('frozen-a', async () => {
      const now = await f.store.databaseNow();
      if (freeze) await frozen;
      return now;
    });
    await a.start();
    await declare('freeze');
    await until(() => firedSince('freeze', new Date(0)), 'the first leader to fire');
    freeze = true;
    const frozeAt = await f.store.databaseNow();
    await databaseClockPast(frozeAt, 2_200); // past A's lease, and two more ticks

    const b = realScheduler('frozen-b');
    await b.start();
    await until(async () => b.isLeader, 'B to take over once A lease lapsed');
    const gap = await gapAfter(frozeAt);
    await until(() => firedSince('freeze', gap.ended_at), 'B to fire past the gap');
    thaw(); // A wakes up believing it leads, its old clock in hand, and finishes its pass
    await a.stop();
    await b.stop();
    await expectCaughtUpByPolicy('freeze', await gapsAfter(began));
  });
});
