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

/** The gap recorded after `after`: the downtime a taking scheduler saw. */
async function gapAfter(after: Date): Promise<{ started_at: Date; ended_at: Date }> {
  const [gap] = await f.query<{ started_at: Date; ended_at: Date }>(
    `SELECT started_at, ended_at FROM cyclone_leader_gaps WHERE name = 'scheduler'
     AND ended_at > $1 ORDER BY ended_at LIMIT 1`,
    [after],
  );
  return gap!;
}

/**
 * Checks each schedule's ticks against the downtime: inside it the policy's runs and no more,
 * outside it every tick submitted, and one run per submitted fire.
 */
async function expectCaughtUpByPolicy(
  prefix: string,
  gap: { started_at: Date; ended_at: Date },
): Promise<void> {
  const inGap = (t: Date) => t > gap.started_at && t < gap.ended_at;
  for (const [id, catchUp] of POLICIES) {
    const fires = (await f.client.listScheduleFires(`${prefix}-${id}`, { limit: 1_000 })).reverse();
    const missed = fires.filter((x) => inGap(x.fireAt));
    const led = fires.filter((x) => !inGap(x.fireAt));
    expect(
      led.every((x) => x.outcome === 'submitted'),
      `${id}: led ticks fire`,
    ).toBe(true);
    // The downtime's rows are its newest catchUpLimit + 1 ticks (three here): the policy's runs are
    // the newest of them.
    const submittedInGap = missed.filter((x) => x.outcome === 'submitted').map((x) => x.fireAt);
    const newest = missed.map((x) => x.fireAt).slice(-2);
    const expected = { none: [], latest: newest.slice(-1), all: newest }[catchUp];
    expect(submittedInGap, `${id}: the downtime's runs`).toEqual(expected);
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
    await expectCaughtUpByPolicy('stop', gap);
  });

  it('a leader frozen in its pass past its lease: the gap is decided once, and its late pass adds nothing', async () => {
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
    await expectCaughtUpByPolicy('freeze', gap);
  });
});
