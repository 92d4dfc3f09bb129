import { describe, expect, it } from 'vitest';
import { permanent, WaitBucketCount } from '@cyclone/core';
import { eventually, useServer } from './support.js';

const env = useServer();

/** A promise and its resolver, to hold a handler running until the test lets it go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('GET /api/queues', () => {
  it('answers each kind’s queue as the steps table holds it', async () => {
    const hold = gate();
    // queue.idle: 3 ready steps nobody serves, 2 scheduled an hour later.
    for (let i = 0; i < 3; i++) await env.client.enqueue('queue.idle', { i });
    for (let i = 0; i < 2; i++)
      await env.client.enqueue('queue.idle', { i }, { scheduledAt: '1h' });
    // queue.busy: 2 running steps held by a worker, 1 discarded.
    await env.startWorker({
      handlers: {
        'queue.busy': async (ctx) => {
          if ((ctx.input as { fail?: boolean }).fail) throw permanent(new Error('no'));
          await hold.opened;
          return {};
        },
      },
      concurrency: 3,
    });
    const failed = await env.client.enqueue('queue.busy', { fail: true });
    await env.client.enqueue('queue.busy', {});
    await env.client.enqueue('queue.busy', {});
    await eventually(
      async () => (await env.client.getRun(failed.runId)).state === 'failed',
      'the failing step to be discarded',
    );
    await eventually(async () => {
      const [row] = await env.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM cyclone_steps WHERE kind = 'queue.busy' AND state = 'running'`,
      );
      return row!.n === 2;
    }, 'two steps running');

    const answer = await env.call('GET', '/api/queues');
    expect(answer.status).toBe(200);
    const byKind = new Map<string, any>(
      answer.body.queues.map((q: { kind: string }) => [q.kind, q]),
    );
    const counted = await env.query<{ kind: string; state: string; due: boolean; n: number }>(
      `SELECT kind, state, scheduled_at <= now() AS due, count(*)::int AS n FROM cyclone_steps
       WHERE kind IN ('queue.idle', 'queue.busy') GROUP BY 1, 2, 3`,
    );
    const sql = (kind: string, state: string, due?: boolean) =>
      counted
        .filter((r) => r.kind === kind && r.state === state && (due === undefined || r.due === due))
        .reduce((n, r) => n + r.n, 0);
    expect(byKind.get('queue.idle')).toMatchObject({
      available: sql('queue.idle', 'available'),
      ready: sql('queue.idle', 'available', true),
      scheduledLater: sql('queue.idle', 'available', false),
      running: 0,
      waitingOnLimit: 0,
      discardedLastHour: 0,
    });
    expect(byKind.get('queue.idle').available).toBe(5);
    expect(byKind.get('queue.idle').scheduledLater).toBe(2);
    expect(byKind.get('queue.idle').oldestReadyAgeSeconds).toBeGreaterThan(0);
    expect(byKind.get('queue.busy')).toMatchObject({
      available: 0,
      running: sql('queue.busy', 'running'),
      discardedLastHour: sql('queue.busy', 'discarded'),
    });
    expect(byKind.get('queue.busy').running).toBe(2);
    expect(byKind.get('queue.busy').discardedLastHour).toBe(1);
    hold.open();
  });

  it('counts the ready steps a concurrency cap holds back', async () => {
    await env.client.setConcurrencyLimit({ kind: 'queue.capped', max: 1 });
    const hold = gate();
    await env.startWorker({
      handlers: { 'queue.capped': () => hold.opened.then(() => ({})) },
      concurrency: 4,
    });
    for (let i = 0; i < 3; i++) await env.client.enqueue('queue.capped', { i });
    await eventually(async () => {
      const queues = (await env.call('GET', '/api/queues')).body.queues as any[];
      const capped = queues.find((q) => q.kind === 'queue.capped');
      return capped?.running === 1 && capped.waitingOnLimit === 2 && capped.ready === 2;
    }, 'one step running and two held back by the cap');
    hold.open();
  });
  it('tells, for a kind under fair share, its keys with claimable steps and the most-starved key', async () => {
    await env.client.setFairShare({ kind: 'queue.fair' });
    await env.client.enqueue('queue.fair', { i: 0 }, { concurrencyKey: 'tenant-old' });
    await env.query(
      `UPDATE cyclone_steps SET scheduled_at = now() - interval '1 hour' WHERE kind = 'queue.fair'`,
    );
    await env.client.enqueue('queue.fair', { i: 1 }, { concurrencyKey: 'tenant-new' });
    await env.client.enqueue('queue.fair', { i: 2 }, { concurrencyKey: 'tenant-new' });
    await env.client.enqueue('queue.fair', { i: 3 });
    await env.client.enqueue('queue.plain', { i: 4 }, { concurrencyKey: 'tenant-old' });
    const queues = (await env.call('GET', '/api/queues')).body.queues as any[];
    const fair = queues.find((q) => q.kind === 'queue.fair');
    expect(fair.fairShare).toEqual({
      keys: 2,
      starvedKey: 'tenant-old',
      starvedKeyless: false,
      starvedAgeSeconds: fair.oldestReadyAgeSeconds,
    });
    expect(fair.fairShare.starvedAgeSeconds).toBeGreaterThan(3_000);
    expect(queues.find((q) => q.kind === 'queue.plain').fairShare).toBeNull();

    // The group of steps without a key can be the most starved, and a kind with nothing ready
    // under fair share is still listed.
    await env.query(
      `UPDATE cyclone_steps SET scheduled_at = now() - interval '2 hours'
       WHERE kind = 'queue.fair' AND concurrency_key IS NULL`,
    );
    await env.client.setFairShare({ kind: 'queue.fair-idle' });
    const again = (await env.call('GET', '/api/queues')).body.queues as any[];
    expect(again.find((q) => q.kind === 'queue.fair').fairShare).toMatchObject({
      keys: 2,
      starvedKey: null,
      starvedKeyless: true,
    });
    expect(again.find((q) => q.kind === 'queue.fair-idle').fairShare).toEqual({
      keys: 0,
      starvedKey: null,
      starvedKeyless: false,
      starvedAgeSeconds: 0,
    });
  });
});

describe('GET /api/workers', () => {
  it('lists a live worker with where it runs and what it holds, and drops it once stopped', async () => {
    const hold = gate();
    const worker = await env.startWorker({
      handlers: { 'workers.hold': () => hold.opened.then(() => ({})) },
      concurrency: 3,
    });
    const { runId } = await env.client.enqueue('workers.hold', {});
    const listed = await eventually(async () => {
      const body = (await env.call('GET', '/api/workers')).body;
      const mine = body.live.find((w: { id: string }) => w.id === worker.id);
      return mine?.heldCount === 1 ? mine : undefined;
    }, 'the worker to hold its step');
    expect(listed).toMatchObject({
      host: expect.any(String),
      pid: process.pid,
      kinds: ['workers.hold'],
      concurrency: 3,
      live: true,
    });
    expect(listed.heldSteps[0]).toMatchObject({
      runId,
      node: 'workers.hold',
      kind: 'workers.hold',
    });
    const [row] = await env.query<{ last_seen_at: Date }>(
      'SELECT last_seen_at FROM cyclone_workers WHERE id = $1',
      [worker.id],
    );
    expect(new Date(listed.lastHeartbeatAt).getTime()).toBe(row!.last_seen_at.getTime());

    hold.open();
    await worker.stop({ timeout: '5s' });
    const after = (await env.call('GET', '/api/workers')).body;
    expect(after.live.map((w: { id: string }) => w.id)).not.toContain(worker.id);
    expect(after.stopped.map((w: { id: string }) => w.id)).not.toContain(worker.id);
  });

  it('lists a worker that stopped refreshing (a crash) under stopped, and the leader', async () => {
    await env.query(
      `INSERT INTO cyclone_workers (id, kinds, started_at, last_seen_at, host, pid, concurrency)
       VALUES ('crashed-1', '{x}', now() - interval '10 minutes', now() - interval '2 minutes', 'h', 1, 2)`,
    );
    await env.query(
      `INSERT INTO cyclone_leaders (name, holder, expires_at, renewed_at, led_since)
       VALUES ('scheduler', 'sched-1', now() + interval '5 seconds', now(), now() - interval '1 hour')
       ON CONFLICT (name) DO UPDATE SET holder = 'sched-1', expires_at = EXCLUDED.expires_at`,
    );
    const body = (await env.call('GET', '/api/workers')).body;
    expect(body.stopped.map((w: { id: string }) => w.id)).toContain('crashed-1');
    expect(body.live.map((w: { id: string }) => w.id)).not.toContain('crashed-1');
    expect(body.leader).toMatchObject({ holder: 'sched-1', active: true });
  });
});

describe('GET /api/stats', () => {
  it('answers per minute what workers counted, the same as the stats table holds', async () => {
    let calls = 0;
    const worker = await env.startWorker({
      handlers: {
        'stats.ok': async () => ({}),
        'stats.flaky': async () => {
          if (++calls === 1) throw new Error('once');
          return {};
        },
      },
      concurrency: 4,
    });
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(await env.client.enqueue('stats.ok', { i }));
    runs.push(await env.client.enqueue('stats.flaky', {}, { maxAttempts: 3 }));
    for (const { runId } of runs) {
      await eventually(
        async () => (await env.client.getRun(runId)).state === 'completed',
        'the run to complete',
        30_000,
      );
    }
    await worker.stop({ timeout: '5s' }); // flushes what is left
    const answer = await env.call('GET', '/api/stats?window=1h&kind=stats.ok');
    expect(answer.status).toBe(200);
    expect(answer.body.minutes).toHaveLength(60);
    const sum = (key: 'completed' | 'failed', minutes: any[]) =>
      minutes.reduce((n, m) => n + m[key], 0);
    expect(sum('completed', answer.body.minutes)).toBe(5);
    expect(
      answer.body.minutes.some((m: any) => m.waitP50Ms !== null && m.waitP95Ms >= m.waitP50Ms),
    ).toBe(true);

    const all = (await env.call('GET', '/api/stats')).body;
    const [row] = await env.query<{ completed: number; failed: number; waits: number }>(
      `SELECT sum(completed)::int AS completed, sum(failed)::int AS failed,
              (SELECT sum(b)::int FROM cyclone_stats_minutes m2, unnest(m2.wait_buckets) b
               WHERE m2.kind LIKE 'stats.%') AS waits
       FROM cyclone_stats_minutes WHERE kind LIKE 'stats.%'`,
    );
    expect(row).toMatchObject({ completed: 6, failed: 1, waits: 7 });
    const flaky = (await env.call('GET', '/api/stats?kind=stats.flaky')).body;
    expect(sum('completed', flaky.minutes)).toBe(1);
    expect(sum('failed', flaky.minutes)).toBe(1);
    expect(sum('completed', all.minutes)).toBeGreaterThanOrEqual(6);
  });

  it('refuses a window beyond a day or of another form, naming the field', async () => {
    for (const window of ['2d', '25h', 'soon', '0m']) {
      const answer = await env.call('GET', `/api/stats?window=${window}`);
      expect(answer.status).toBe(400);
      expect(answer.body.error.issues[0].path).toBe('window');
    }
  });

  it('forgets minutes older than a day at the retention sweep', async () => {
    const zeros = `'{${new Array(WaitBucketCount).fill(0).join(',')}}'::bigint[]`;
    await env.query(
      `INSERT INTO cyclone_stats_minutes (minute, kind, completed, failed, wait_buckets)
       VALUES (date_trunc('minute', now()) - interval '25 hours', 'old.kind', 1, 0, ${zeros}),
              (date_trunc('minute', now()) - interval '23 hours', 'old.kind', 1, 0, ${zeros})`,
    );
    const { connectStore, StatsMinutesKeptMs } = await import('@cyclone/store-postgres');
    const { store, close } = connectStore({ connectionString: env.url }, 'test');
    try {
      expect(await store.deleteOldStatsMinutes(StatsMinutesKeptMs)).toBe(1);
    } finally {
      await close();
    }
    const left = await env.query(`SELECT 1 FROM cyclone_stats_minutes WHERE kind = 'old.kind'`);
    expect(left).toHaveLength(1);
  });
});
