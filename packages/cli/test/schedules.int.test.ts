import { describe, expect, it } from 'vitest';
import { useCli } from './support/use-cli.js';

const cli = useCli({ poolSize: 2 });
const { cyclone } = cli;

describe('cyclone schedules', () => {
  it('lists, pauses, resumes, backfills and shows a schedule, with --json', async () => {
    await cli.client.schedule({ id: 'cli-hourly', cron: '0 * * * *', kind: 'cli.job' });
    const list = await cyclone('schedules', 'list', '--json');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.out)).toMatchObject([{ id: 'cli-hourly', enabled: true }]);
    expect((await cyclone('schedules', 'list')).out).toMatch(/cli-hourly\s+kind cli.job/);

    expect((await cyclone('schedules', 'pause', 'cli-hourly')).out).toBe(
      'paused schedule cli-hourly',
    );
    expect((await cli.client.getSchedule('cli-hourly')).enabled).toBe(false);
    const resumed = await cyclone('schedules', 'resume', 'cli-hourly', '--json');
    expect(JSON.parse(resumed.out)).toMatchObject({ enabled: true });

    const hour = 3_600_000;
    const top = Math.floor(Date.now() / hour) * hour - 2 * hour;
    const from = new Date(top - 3 * hour).toISOString();
    const to = new Date(top).toISOString();
    const backfill = await cyclone(
      'schedules',
      'backfill',
      'cli-hourly',
      '--from',
      from,
      '--to',
      to,
      '--json',
    );
    expect(backfill.code).toBe(0);
    expect(JSON.parse(backfill.out)).toEqual({ created: 3, skipped: 0 });

    const show = await cyclone('schedules', 'show', 'cli-hourly');
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/submitted\s+Late/);
    const shown = JSON.parse((await cyclone('schedules', 'show', 'cli-hourly', '--json')).out);
    expect(shown.fires).toHaveLength(3);
  });

  it('deletes a schedule and its fires, leaving the runs it started; 3 when there is none', async () => {
    await cli.client.schedule({ id: 'cli-doomed', cron: '0 * * * *', kind: 'cli.doomed' });
    const hour = 3_600_000;
    const top = Math.floor(Date.now() / hour) * hour - 2 * hour;
    await cli.client.backfill('cli-doomed', { from: new Date(top - 2 * hour), to: new Date(top) });
    const runIds = (await cli.client.listScheduleFires('cli-doomed')).map((fire) => fire.runId!);
    expect(runIds).toHaveLength(2);

    const deleted = await cyclone('schedules', 'delete', 'cli-doomed');
    expect(deleted.code).toBe(0);
    expect(deleted.out).toBe('deleted schedule cli-doomed');
    expect((await cli.client.listSchedules()).map((s) => s.id)).not.toContain('cli-doomed');
    for (const runId of runIds) expect((await cli.client.getRun(runId)).state).toBe('running');
    const again = await cyclone('schedules', 'delete', 'cli-doomed', '--json');
    expect(again.code).toBe(3);
    expect(again.err).toContain('cli-doomed');
  });

  it('exits 3 for an unknown schedule, 2 for a bad time, 1 for a refused backfill', async () => {
    expect((await cyclone('schedules', 'pause', 'nope')).code).toBe(3);
    expect((await cyclone('schedules', 'show', 'nope')).code).toBe(3);
    await cli.client.schedule({ id: 'cli-minute', cron: '* * * * *', kind: 'cli.job' });
    const bad = await cyclone(
      'schedules',
      'backfill',
      'cli-minute',
      '--from',
      'yesterday',
      '--to',
      'now',
    );
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--from expects an ISO 8601 time');
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const refused = await cyclone(
      'schedules',
      'backfill',
      'cli-minute',
      '--from',
      new Date().toISOString(),
      '--to',
      future,
    );
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/to: expected a time not after the database's clock/);
    expect((await cyclone('schedules', 'backfill', 'cli-minute')).code).toBe(2);
  });
});
