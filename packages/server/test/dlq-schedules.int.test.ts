import { describe, expect, it } from 'vitest';
import { permanent, workflow } from '@cyclone/core';
import { eventually, useServer } from './support.js';

const env = useServer();

const billing = workflow('billing').task('charge', 'billing.charge', { maxAttempts: 1 }).build();

describe('the DLQ', () => {
  it('lists discarded steps by reason and workflow, and redrives them', async () => {
    let fail = true;
    await env.startWorker({
      handlers: {
        'billing.charge': async () => {
          if (fail) throw permanent(new Error('card declined'));
          return { ok: true };
        },
      },
      workflows: [billing],
    });
    const { runId } = await env.client.submit(billing, {});
    await eventually(
      async () => (await env.client.getRun(runId)).state === 'failed',
      'the run to fail',
    );

    const dlq = await env.call('GET', '/api/dlq?reason=permanent&workflow=billing');
    expect(dlq.status).toBe(200);
    expect(dlq.body.steps).toEqual([
      expect.objectContaining({
        runId,
        node: 'charge',
        reason: 'permanent',
        error: 'card declined',
      }),
    ]);
    expect((await env.call('GET', '/api/dlq?reason=deadline')).body.steps).toEqual([]);

    const bad = await env.call('GET', '/api/dlq?reason=tired');
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe('reason');

    const badBody = await env.call('POST', '/api/dlq/redrive', { body: { limit: -1 } });
    expect(badBody.status).toBe(400);
    expect(badBody.body.error.issues[0].path).toBe('limit');

    fail = false;
    const redriven = await env.call('POST', '/api/dlq/redrive', { body: { reason: 'permanent' } });
    expect(redriven.status).toBe(200);
    expect(redriven.body).toEqual({ retried: 1, runs: [runId] });
    await eventually(
      async () => (await env.client.getRun(runId)).state === 'completed',
      'the redriven run to complete',
    );
    expect((await env.call('GET', '/api/dlq')).body.steps).toEqual([]);
  });
});

describe('schedules', () => {
  it('lists schedules with their recent fires, pauses, resumes and backfills them', async () => {
    await env.client.schedule({
      id: 'nightly',
      cron: '0 3 * * *',
      kind: 'report.build',
      input: {},
    });
    const list = await env.call('GET', '/api/schedules');
    expect(list.status).toBe(200);
    expect(list.body.schedules).toEqual([
      expect.objectContaining({ id: 'nightly', cron: '0 3 * * *', enabled: true, fires: [] }),
    ]);

    const paused = await env.call('POST', '/api/schedules/nightly/pause');
    expect(paused.status).toBe(200);
    expect(paused.body.schedule.enabled).toBe(false);
    const [row] = await env.query("SELECT enabled FROM cyclone_schedules WHERE id = 'nightly'");
    expect(row).toEqual({ enabled: false });
    expect((await env.call('POST', '/api/schedules/nightly/resume')).body.schedule.enabled).toBe(
      true,
    );

    const to = new Date(Date.now() - 60_000);
    const from = new Date(to.getTime() - 3 * 86_400_000);
    const backfill = await env.call('POST', '/api/schedules/nightly/backfill', {
      body: { from: from.toISOString(), to: to.toISOString() },
    });
    expect(backfill.status).toBe(200);
    expect(backfill.body.created).toBe(3);

    const fires = await env.call('GET', '/api/schedules/nightly/fires?limit=2');
    expect(fires.status).toBe(200);
    expect(fires.body.fires).toHaveLength(2);
    expect(fires.body.fires[0]).toMatchObject({ outcome: 'submitted', runId: expect.any(String) });
    const one = await env.call('GET', '/api/schedules/nightly');
    expect(one.body.schedule.fires).toHaveLength(3);
    expect((await env.call('GET', '/api/schedules?fires=1')).body.schedules[0].fires).toHaveLength(
      1,
    );
  });

  it('deletes a schedule and its fires, leaving the runs it started', async () => {
    await env.client.schedule({ id: 'doomed', cron: '0 * * * *', kind: 'doomed.job' });
    const hour = 3_600_000;
    const [{ now }] = (await env.query<{ now: Date }>('SELECT now() AS now')) as [{ now: Date }];
    const top = Math.floor(now.getTime() / hour) * hour;
    const from = new Date(top - 3 * hour).toISOString();
    const to = new Date(top - hour).toISOString();
    const backfilled = await env.call('POST', '/api/schedules/doomed/backfill', {
      body: { from, to },
    });
    expect(backfilled.body).toEqual({ created: 2, skipped: 0 });
    const runIds = (await env.client.listScheduleFires('doomed')).map((fire) => fire.runId!);

    const deleted = await env.call('DELETE', '/api/schedules/doomed');
    expect(deleted.status).toBe(200);
    expect(deleted.body.schedule).toMatchObject({ id: 'doomed', kind: 'doomed.job' });
    expect((await env.call('GET', '/api/schedules/doomed')).status).toBe(404);
    const [{ fires }] = (await env.query<{ fires: string }>(
      `SELECT count(*) AS fires FROM cyclone_schedule_fires WHERE schedule_id = 'doomed'`,
    )) as [{ fires: string }];
    expect(Number(fires)).toBe(0);
    for (const runId of runIds) expect((await env.client.getRun(runId)).state).toBe('running');
    expect((await env.call('DELETE', '/api/schedules/doomed')).status).toBe(404);
  });

  it('answers 404 for an unknown schedule and 400 naming a bad backfill field', async () => {
    for (const [method, path] of [
      ['GET', '/api/schedules/missing'],
      ['GET', '/api/schedules/missing/fires'],
      ['POST', '/api/schedules/missing/pause'],
      ['POST', '/api/schedules/missing/resume'],
      ['DELETE', '/api/schedules/missing'],
    ] as const) {
      const answer = await env.call(method, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error.code).toBe('NOT_FOUND');
    }
    const bad = await env.call('POST', '/api/schedules/nightly/backfill', {
      body: { from: 'last week' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      'from',
      'to',
    ]);
  });
});
