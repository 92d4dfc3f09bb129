import { describe, expect, it } from 'vitest';
import { useStore } from '../fixture.js';
import { leaseOnTestClock, minutelySchedule } from './schedule-helpers.js';

const fx = useStore();
const T0 = new Date('2026-03-02T12:00:00Z');
const MIN = 60_000;
const at = (ms: number) => new Date(T0.getTime() + ms);

interface LeaseRow {
  holder: string;
  renewed_at: Date;
  led_since: Date;
  expires_at: Date;
}
const lease = async (name: string) =>
  (await fx.query<LeaseRow>('SELECT * FROM cyclone_leaders WHERE name = $1', [name]))[0]!;
const gaps = (name: string) =>
  fx.query<{ started_at: Date | null; ended_at: Date }>(
    'SELECT started_at, ended_at FROM cyclone_leader_gaps WHERE name = $1 ORDER BY ended_at',
    [name],
  );
/** Lets a lease lapse as if its holder had stopped renewing it. */
const lapse = (name: string) =>
  fx.query(`UPDATE cyclone_leaders SET expires_at = now() - interval '1 ms' WHERE name = $1`, [
    name,
  ]);

describe('leadership gaps', () => {
  it('taking a lease that lapsed records the gap from its last renewal; renewing it records none', async () => {
    expect(await fx.store.attemptLeadership('gaps-a', 'one', 60_000)).toBe(true);
    const first = await lease('gaps-a');
    // Never held before: the gap has no known start.
    expect(await gaps('gaps-a')).toEqual([{ started_at: null, ended_at: first.led_since }]);

    expect(await fx.store.attemptLeadership('gaps-a', 'one', 60_000)).toBe(true);
    expect(await fx.store.attemptLeadership('gaps-a', 'two', 60_000)).toBe(false);
    const renewed = await lease('gaps-a');
    expect(renewed.renewed_at.getTime()).toBeGreaterThan(first.renewed_at.getTime());
    expect(renewed.led_since).toEqual(first.led_since);
    expect(await gaps('gaps-a')).toHaveLength(1);

    await lapse('gaps-a');
    expect(await fx.store.attemptLeadership('gaps-a', 'two', 60_000)).toBe(true);
    const taken = await lease('gaps-a');
    expect(taken).toMatchObject({ holder: 'two', led_since: taken.renewed_at });
    expect((await gaps('gaps-a'))[1]).toEqual({
      started_at: renewed.renewed_at,
      ended_at: taken.led_since,
    });
  });

  it('a resigned lease keeps its row, and the next holder counts the gap from its last renewal', async () => {
    await fx.store.attemptLeadership('gaps-b', 'one', 60_000);
    const held = await lease('gaps-b');
    await fx.store.resignLeadership('gaps-b', 'one');
    const resigned = await lease('gaps-b');
    expect(resigned.renewed_at).toEqual(held.renewed_at);
    expect(resigned.expires_at.getTime()).toBeLessThan(held.expires_at.getTime());
    // The same holder coming back after the lapse starts a new leadership too.
    expect(await fx.store.attemptLeadership('gaps-b', 'one', 60_000)).toBe(true);
    const back = await lease('gaps-b');
    expect((await gaps('gaps-b'))[1]).toEqual({
      started_at: held.renewed_at,
      ended_at: back.led_since,
    });
  });

  it('replicas racing for a lapsed lease: one leads and one gap is recorded', async () => {
    await fx.store.attemptLeadership('gaps-c', 'one', 60_000);
    await lapse('gaps-c');
    const won = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((holder) =>
        fx.store.attemptLeadership('gaps-c', holder, 60_000),
      ),
    );
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await gaps('gaps-c')).toHaveLength(2);
  });
});

/** A per-minute schedule whose first unhandled tick is 12:01 on the test's clock. */
const schedule = (id: string, catchUp: 'none' | 'latest' | 'all') =>
  minutelySchedule(fx, id, T0, { catchUp });
const fires = (id: string) =>
  fx.query<{ minute: number; outcome: string }>(
    `SELECT (extract(epoch FROM fire_at - $2::timestamptz) / 60)::int AS minute, outcome
     FROM cyclone_schedule_fires WHERE schedule_id = $1 ORDER BY fire_at`,
    [id, T0],
  );
const pass = (leaseName: string, now: Date) =>
  fx.store.fireDueSchedules({ now, lease: leaseName, workflows: new Map() });

describe('a schedules pass under a lease', () => {
  it('decides ticks only up to the lease last renewal: later ones may still fall into a downtime', async () => {
    await schedule('cover', 'none');
    await leaseOnTestClock(fx, 'cover-lease', at(2 * MIN + 30_000));
    await pass('cover-lease', at(5 * MIN + 1_000));
    expect(await fires('cover')).toEqual([
      { minute: 1, outcome: 'submitted' },
      { minute: 2, outcome: 'submitted' },
    ]);
    // The holder died after that renewal; another took the lease at 12:05:00.400.
    await fx.query(`UPDATE cyclone_leaders SET renewed_at = $1 WHERE name = 'cover-lease'`, [
      at(5 * MIN + 400),
    ]);
    await fx.query(`INSERT INTO cyclone_leader_gaps VALUES ('cover-lease', $1, $2)`, [
      at(2 * MIN + 30_000),
      at(5 * MIN + 400),
    ]);
    await pass('cover-lease', at(5 * MIN + 1_000));
    // 12:03 to 12:05 were missed ('none': recorded skipped); nothing was fired twice.
    expect(await fires('cover')).toEqual([
      { minute: 1, outcome: 'submitted' },
      { minute: 2, outcome: 'submitted' },
      { minute: 3, outcome: 'skipped' },
      { minute: 4, outcome: 'skipped' },
      { minute: 5, outcome: 'skipped' },
    ]);
  });

  it('decides nothing under a lease no scheduler ever held', async () => {
    await schedule('unheld', 'all');
    expect(await pass('never-held', at(3 * MIN))).toMatchObject({ schedules: 0, submitted: 0 });
    expect(await fires('unheld')).toEqual([]);
  });

  it('passes racing over one downtime start one run for it under latest', async () => {
    await schedule('racing', 'latest');
    await leaseOnTestClock(fx, 'racing-lease', at(10 * MIN), [[at(30_000), at(4 * MIN + 400)]]);
    await Promise.all([1, 2, 3, 4].map(() => pass('racing-lease', at(4 * MIN + 1_000))));
    expect(await fires('racing')).toEqual([
      { minute: 1, outcome: 'skipped' },
      { minute: 2, outcome: 'skipped' },
      { minute: 3, outcome: 'skipped' },
      { minute: 4, outcome: 'submitted' },
    ]);
    const [runs] = await fx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM cyclone_runs WHERE workflow = 'racing.job'`,
    );
    expect(runs!.n).toBe(1);
  });

  it('deletes the gaps no enabled schedule can need any more, and keeps the others', async () => {
    // Only this schedule is enabled: the others of the file would keep older gaps needed.
    await fx.query('UPDATE cyclone_schedules SET enabled = false');
    await schedule('pruning', 'latest');
    await leaseOnTestClock(fx, 'prune-lease', at(10 * MIN), [
      [at(-20 * MIN), at(-10 * MIN)], // over before the schedule's first unhandled tick
      [at(2 * MIN + 30_000), at(3 * MIN)],
      [at(20 * MIN), at(30 * MIN)], // after the pass's clock: still needed
    ]);
    await pass('prune-lease', at(5 * MIN + 1_000));
    const left = await fx.query<{ ended_at: Date }>(
      `SELECT ended_at FROM cyclone_leader_gaps WHERE name = 'prune-lease' ORDER BY ended_at`,
    );
    // next_run_at is 12:06 now: the gap that ended at 12:03 is no longer needed either.
    expect(left.map((g) => g.ended_at)).toEqual([at(30 * MIN)]);
    expect(await fires('pruning')).toEqual([
      { minute: 1, outcome: 'submitted' },
      { minute: 2, outcome: 'submitted' },
      { minute: 3, outcome: 'submitted' },
      { minute: 4, outcome: 'submitted' },
      { minute: 5, outcome: 'submitted' },
    ]);
  });
});
