import { beforeAll, describe, expect, it } from 'vitest';
import { useStore } from '../fixture.js';
import { leaseOnTestClock, minutelySchedule } from './schedule-helpers.js';

const fx = useStore();
const T0 = new Date('2026-02-02T08:00:00Z');
const MIN = 60_000;
// A lease renewed now with no recorded gap: every tick of this file's clock (in the database's
// past) fell due while a scheduler led.
beforeAll(async () => leaseOnTestClock(fx, 'scheduler', await fx.store.databaseNow()));

const schedule = (id: string, kind: string, overlap: 'skip' | 'allow' | 'cancel_previous') =>
  minutelySchedule(fx, id, T0, { kind, overlap });

const pass = (now: Date) =>
  fx.store.fireDueSchedules({ now, lease: 'scheduler', workflows: new Map() });

describe('fireDueSchedules', () => {
  it('rolls a failed schedule pass back whole, counts a scanner failure, and retries the tick', async () => {
    await schedule('broken', 'broken.job', 'allow');
    // The run insert fails inside the schedule's transaction (after its fire row was written).
    await fx.query(`
      CREATE FUNCTION refuse_broken() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.workflow = 'broken.job' THEN RAISE EXCEPTION 'refused by test'; END IF;
      RETURN NEW; END $$`);
    await fx.query(`CREATE TRIGGER refuse_broken BEFORE INSERT ON cyclone_runs
      FOR EACH ROW EXECUTE FUNCTION refuse_broken()`);
    const now = new Date(T0.getTime() + MIN + 1_000);
    expect(await pass(now)).toMatchObject({ schedules: 1, failed: 1, submitted: 0 });
    const [row] = await fx.query(
      'SELECT consecutive_failures, last_error, next_run_at FROM cyclone_schedules WHERE id = $1',
      ['broken'],
    );
    expect(row).toMatchObject({
      consecutive_failures: 1,
      next_run_at: new Date(T0.getTime() + MIN), // not advanced: the same tick is tried again
    });
    expect(row!.last_error).toMatch(/scanner failure: .*refused by test/);
    expect(await fx.query('SELECT * FROM cyclone_schedule_fires')).toEqual([]);

    await fx.query('DROP TRIGGER refuse_broken ON cyclone_runs');
    expect(await pass(now)).toMatchObject({ schedules: 1, submitted: 1, failed: 0 });
    const [after] = await fx.query(
      'SELECT consecutive_failures FROM cyclone_schedules WHERE id = $1',
      ['broken'],
    );
    expect(after).toEqual({ consecutive_failures: 0 });
  });

  it('cancels the previous run under cancel_previous with core cancel events, in the new fire', async () => {
    await schedule('replace', 'replace.job', 'cancel_previous');
    await pass(new Date(T0.getTime() + MIN + 1_000));
    const [first] = await fx.query<{ run_id: string }>(
      'SELECT run_id FROM cyclone_schedule_fires WHERE schedule_id = $1',
      ['replace'],
    );
    await pass(new Date(T0.getTime() + 2 * MIN + 1_000));
    expect((await fx.run(first!.run_id)).state).toBe('cancelled');
    expect(await fx.events(first!.run_id)).toEqual([
      ['run_submitted', null, 'running', 'submit'],
      ['step_cancelled_cancel', 'available', 'cancelled', 'cancel'],
      ['run_cancelled', 'running', 'cancelled', 'cancel'],
    ]);
    const fires = await fx.query<{ outcome: string }>(
      'SELECT outcome FROM cyclone_schedule_fires WHERE schedule_id = $1 ORDER BY fire_at',
      ['replace'],
    );
    expect(fires.map((f) => f.outcome)).toEqual(['submitted', 'submitted']);
  });
});
