import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError, nextCronFire, workflow } from '@cyclone/core';
import { expectEventsFollowTable, useTestDatabase } from '@cyclone/test-db';
import { Client } from '../src/index.js';

const db = useTestDatabase();
let pool: pg.Pool;
let client: Client;
let checkedEventId = 0;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on('error', () => undefined); // the database's drop ends idle connections
  client = new Client({ pool });
});
afterEach(async () => {
  checkedEventId = await expectEventsFollowTable(pool, checkedEventId);
});
afterAll(async () => {
  await client.close();
  await pool.end();
});

const count = async (table: string) =>
  Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
const dbNow = async () => (await pool.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now;

async function refused(options: unknown): Promise<ValidationError> {
  const error = await client.schedule(options as Parameters<Client['schedule']>[0]).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

describe('client.schedule validation', () => {
  const base = { id: 'bad', cron: '* * * * *', kind: 'job.kind' };

  it.each([
    ['a 7-field cron', { cron: '0 0 0 * * * 2026' }, 'cron', /got 7 fields/],
    ['a 3-field cron', { cron: '* * *' }, 'cron', /got 3 fields/],
    ['an unknown time zone', { timezone: 'Mars/Olympus' }, 'timezone', /IANA time zone/],
    ['both workflow and kind', { workflow: 'wf' }, 'kind', /got both/],
    ['neither workflow nor kind', { kind: undefined }, 'workflow', /got neither/],
    ['an id with U+0000', { id: 'a\u0000b' }, 'id', /U\+0000/],
    ['an unknown overlap policy', { overlap: 'queue' }, 'overlap', /skip/],
  ])(
    'refuses %s with a ValidationError naming the field, writing nothing',
    async (_, patch, path, message) => {
      const error = await refused({ ...base, ...patch });
      expect(error.issues[0]).toMatchObject({ path, message: expect.stringMatching(message) });
      expect(await count('cyclone_schedules')).toBe(0);
      expect(await count('cyclone_workflows')).toBe(0);
    },
  );
});

describe('client.schedule', () => {
  it('upserts by id and returns the schedule with its defaults', async () => {
    const first = await client.schedule({ id: 'up', cron: '0 * * * *', kind: 'up.job', input: 1 });
    expect(first).toMatchObject({
      id: 'up',
      kind: 'up.job',
      workflow: null,
      cron: '0 * * * *',
      timezone: 'UTC',
      enabled: true,
      overlap: 'skip',
      catchUp: 'latest',
      catchUpLimit: 100,
      consecutiveFailures: 0,
      lastFireAt: null,
      lastRunId: null,
      input: 1,
    });
    expect(first.nextRunAt!.getTime()).toBeGreaterThan((await dbNow()).getTime());
    const again = await client.schedule({
      id: 'up',
      cron: '0 * * * *',
      kind: 'up.job',
      input: 2,
      overlap: 'allow',
    });
    expect(again).toMatchObject({ input: 2, overlap: 'allow', nextRunAt: first.nextRunAt });
    expect((await client.listSchedules()).map((s) => s.id)).toEqual(['up']);
  });

  it('stores a built workflow by hash and refers to it by name', async () => {
    const wf = workflow('stored-wf').task('t', 'stored.t').build();
    const s = await client.schedule({ id: 'wf', cron: '0 0 * * *', workflow: wf });
    expect(s).toMatchObject({ workflow: 'stored-wf', kind: null });
    const { rows } = await pool.query('SELECT name FROM cyclone_workflows WHERE hash = $1', [
      wf.hash,
    ]);
    expect(rows).toEqual([{ name: 'stored-wf' }]);
  });
});

describe('pause, resume, unschedule', () => {
  it('pause and the deprecated unschedule disable; resume starts at the first tick after now', async () => {
    await client.schedule({ id: 'pr', cron: '* * * * *', kind: 'pr.job' });
    // Pretend the schedule was paused a long time ago, its next tick long past.
    await pool.query(
      `UPDATE cyclone_schedules SET next_run_at = '2020-01-01T00:00:00Z' WHERE id = 'pr'`,
    );
    expect((await client.pauseSchedule('pr')).enabled).toBe(false);
    const resumed = await client.resumeSchedule('pr');
    const now = await dbNow();
    expect(resumed.enabled).toBe(true);
    // The ticks that passed while paused are not missed ticks: the schedule skips them.
    expect(resumed.nextRunAt).toEqual(nextCronFire({ cron: '* * * * *', timezone: 'UTC' }, now));
    expect(resumed.nextRunAt!.getTime()).toBeGreaterThan(now.getTime() - 60_000);
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the alias under test
    const unscheduled = await client.unschedule('pr');
    expect(unscheduled).toMatchObject({ enabled: false, nextRunAt: resumed.nextRunAt });
  });

  it('raises NotFoundError for unknown schedule ids', async () => {
    for (const call of [
      () => client.pauseSchedule('nope'),
      () => client.resumeSchedule('nope'),
      () => client.getSchedule('nope'),
      () => client.listScheduleFires('nope'),
      () => client.backfill('nope', { from: new Date(0), to: new Date(1) }),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(NotFoundError);
    }
  });
});

describe('backfill', () => {
  it('creates one run per past tick without one, each once, idempotently', async () => {
    await client.schedule({ id: 'bf', cron: '0 * * * *', kind: 'bf.job' });
    const hour = 3_600_000;
    const top = new Date(Math.floor((await dbNow()).getTime() / hour) * hour);
    const from = new Date(top.getTime() - 5 * hour);
    const to = new Date(top.getTime() - hour); // [from, to): four ticks
    expect(await client.backfill('bf', { from, to })).toEqual({ created: 4, skipped: 0 });
    expect(await client.backfill('bf', { from, to })).toEqual({ created: 0, skipped: 4 });
    const wider = { from: new Date(from.getTime() - hour), to };
    expect(await client.backfill('bf', wider)).toEqual({ created: 1, skipped: 4 });
    const fires = await client.listScheduleFires('bf');
    expect(fires.map((x) => x.fireAt.getTime())).toEqual(
      [2, 3, 4, 5, 6].map((h) => top.getTime() - h * hour),
    );
    expect(fires.every((x) => x.outcome === 'submitted' && x.late && x.runId !== null)).toBe(true);
    expect(await count('cyclone_runs')).toBe(5);
  });

  it('refuses a range that reaches into the future, or runs backwards, writing nothing', async () => {
    await client.schedule({ id: 'bf-future', cron: '* * * * *', kind: 'bff.job' });
    const now = await dbNow();
    const future = client.backfill('bf-future', {
      from: now,
      to: new Date(now.getTime() + 3_600_000),
    });
    await expect(future).rejects.toBeInstanceOf(ValidationError);
    const backwards = client.backfill('bf-future', { from: now, to: new Date(0) });
    await expect(backwards).rejects.toBeInstanceOf(ValidationError);
    expect(await client.listScheduleFires('bf-future')).toEqual([]);
  });
});
