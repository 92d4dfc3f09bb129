/**
 * Deleting a schedule (`client.deleteSchedule`): the row and the record of its fires go, the runs
 * its fires started stay as they were, and no fire follows once the call has returned, even when
 * a scheduler was firing the schedule at that moment.
 */
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '@cyclone/core';
import { plus, until, useSchedules } from './schedule-fixture.js';

const f = useSchedules();
const T0 = new Date('2026-06-01T10:00:00Z');
const MIN = 60_000;

const schedulesNamed = async (id: string) =>
  Number(
    (
      await f.query<{ n: string }>('SELECT count(*) AS n FROM cyclone_schedules WHERE id = $1', [
        id,
      ])
    )[0]!.n,
  );
const firesOf = async (id: string) =>
  Number(
    (
      await f.query<{ n: string }>(
        'SELECT count(*) AS n FROM cyclone_schedule_fires WHERE schedule_id = $1',
        [id],
      )
    )[0]!.n,
  );

describe('client.deleteSchedule', () => {
  it('deletes the schedule and its fires, leaves its runs, and nothing fires afterwards', async () => {
    await f.client.schedule({ id: 'gone', cron: '* * * * *', kind: 'gone.job', overlap: 'allow' });
    await f.startAt('gone', T0);
    const s = f.scheduler();
    f.clock.now = plus(T0, 2 * MIN + 1_000); // the 10:01 and 10:02 ticks
    await f.fire(s);
    const runs = await f.runsOf('gone');
    expect(runs).toHaveLength(2);
    await f.client.cancel(runs[0]!);
    const before = await Promise.all(runs.map((id) => f.client.getRun(id)));

    const deleted = await f.client.deleteSchedule('gone');
    expect(deleted).toMatchObject({ id: 'gone', kind: 'gone.job', lastRunId: runs[1] });
    expect(await schedulesNamed('gone')).toBe(0);
    expect(await firesOf('gone')).toBe(0);
    // The runs are untouched: one cancelled, one still running, as before the delete.
    expect(await Promise.all(runs.map((id) => f.client.getRun(id)))).toEqual(before);

    f.clock.now = plus(T0, 10 * MIN);
    await f.fire(s);
    expect(await f.countRuns('gone.job')).toBe(2);
    await expect(f.client.getSchedule('gone')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('raises NotFoundError for an unknown id, and for a second delete', async () => {
    await f.client.schedule({ id: 'twice', cron: '0 * * * *', kind: 'twice.job' });
    await f.client.deleteSchedule('twice');
    await expect(f.client.deleteSchedule('twice')).rejects.toBeInstanceOf(NotFoundError);
    await expect(f.client.deleteSchedule('never-was')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('waits for a fire in progress to commit, and deletes what it wrote', async () => {
    await f.client.schedule({ id: 'mid', cron: '* * * * *', kind: 'mid.job' });
    // A scheduler mid-fire: it holds the schedule's row lock (as `lock-due-schedule` takes it)
    // and has written a fire, not yet committed.
    const firing = await f.pool.connect();
    try {
      await firing.query('BEGIN');
      await firing.query(`SELECT id FROM cyclone_schedules WHERE id = 'mid' FOR UPDATE`);
      await firing.query(
        `INSERT INTO cyclone_schedule_fires (schedule_id, fire_at, outcome, error)
         VALUES ('mid', $1, 'skipped', 'overlap')`,
        [T0],
      );
      let settled = false;
      const deleting = f.client.deleteSchedule('mid').finally(() => (settled = true));
      await until(
        async () =>
          (
            await f.query<{ waiting: boolean }>(
              `SELECT count(*) > 0 AS waiting FROM pg_stat_activity
               WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            )
          )[0]!.waiting,
        'the delete to wait for the fire',
      );
      expect(settled).toBe(false);
      await firing.query('COMMIT');
      await deleting;
    } finally {
      firing.release();
    }
    expect(await schedulesNamed('mid')).toBe(0);
    // The fire committed while the delete waited is gone with the schedule, not left behind.
    expect(await firesOf('mid')).toBe(0);
  });

  it('racing scheduler passes: no fire is recorded or run started after the delete returns', async () => {
    await f.client.schedule({
      id: 'race-del',
      cron: '* * * * *',
      kind: 'race-del.job',
      overlap: 'allow',
    });
    await f.startAt('race-del', T0);
    const a = f.scheduler({ id: 'a' });
    const b = f.scheduler({ id: 'b' });
    f.clock.now = plus(T0, 30 * MIN);
    await Promise.all([f.fire(a), f.client.deleteSchedule('race-del'), f.fire(b)]);
    const after = await f.countRuns('race-del.job');
    expect(await firesOf('race-del')).toBe(0);
    f.clock.now = plus(T0, 60 * MIN);
    await Promise.all([f.fire(a), f.fire(b)]);
    expect(await f.countRuns('race-del.job')).toBe(after);
    expect(await firesOf('race-del')).toBe(0);
  });
});
