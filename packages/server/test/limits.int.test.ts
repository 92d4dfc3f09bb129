import { describe, expect, it } from 'vitest';
import { createServer } from '../src/index.js';
import { eventually, request, testLogger, useServer } from './support.js';

const env = useServer();

/** The kind's row of `cyclone_limits`, as stored. */
async function stored(kind: string) {
  const [row] = await env.query(
    `SELECT concurrency_max, concurrency_per_key, rate_limit, rate_period_ms::int AS rate_period_ms,
            rate_period, rate_per_key
     FROM cyclone_limits WHERE kind = $1`,
    [kind],
  );
  return row;
}

describe('the limits routes', () => {
  it('sets, reads, lists and removes a concurrency cap, with running and waiting steps from the database', async () => {
    const put = await env.call('PUT', '/api/limits/concurrency/limits.capped', {
      body: { max: 1 },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      limit: { kind: 'limits.capped', max: 1, perKey: false, running: 0, waiting: 0 },
    });
    expect(await stored('limits.capped')).toMatchObject({
      concurrency_max: 1,
      concurrency_per_key: false,
      rate_limit: null,
    });

    // One step runs and holds the cap; two more wait on it.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await env.startWorker({
      handlers: { 'limits.capped': () => gate.then(() => ({ ok: true })) },
      concurrency: 3,
    });
    const runs = await Promise.all(
      [1, 2, 3].map(() => env.client.enqueue('limits.capped', {}).then((r) => r.runId)),
    );
    const held = await eventually(async () => {
      const answer = await env.call('GET', '/api/limits/concurrency/limits.capped');
      return answer.body.limit?.running === 1 && answer.body.limit.waiting === 2 && answer;
    }, 'one step running and two waiting on the cap');
    expect(held.status).toBe(200);
    const counted = await env.query<{ running: number }>(
      "SELECT count(*)::int AS running FROM cyclone_steps WHERE kind = 'limits.capped' AND state = 'running'",
    );
    expect(counted).toEqual([{ running: 1 }]);

    const list = await env.call('GET', '/api/limits');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      concurrency: [{ kind: 'limits.capped', max: 1, perKey: false, running: 1, waiting: 2 }],
      rate: [],
    });

    // Raised to 3 per key: the waiting steps start, each key (none here) is one group.
    const raised = await env.call('PUT', '/api/limits/concurrency/limits.capped', {
      body: { max: 3, perKey: true },
    });
    expect(raised.body.limit).toMatchObject({ max: 3, perKey: true });
    await eventually(
      async () =>
        (
          await env.query(
            "SELECT 1 FROM cyclone_steps WHERE kind = 'limits.capped' AND state = 'running'",
          )
        ).length === 3,
      'the held steps to start once the cap is raised',
    );
    release();
    for (const runId of runs) {
      await eventually(
        async () => (await env.client.getRun(runId)).state === 'completed',
        'the capped runs to complete',
      );
    }

    const removed = await env.call('DELETE', '/api/limits/concurrency/limits.capped');
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ kind: 'limits.capped', removed: 'concurrency' });
    expect(await stored('limits.capped')).toBeUndefined();
  });

  it('sets, reads, lists and removes a rate limit, keeping the kind’s cap', async () => {
    await env.call('PUT', '/api/limits/concurrency/limits.both', { body: { max: 4 } });
    const put = await env.call('PUT', '/api/limits/rate/limits.both', {
      body: { limit: 100, period: '1m', perKey: true },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      limit: { kind: 'limits.both', limit: 100, period: '1m', perKey: true },
    });
    expect(await stored('limits.both')).toMatchObject({
      concurrency_max: 4,
      rate_limit: 100,
      rate_period_ms: 60_000,
      rate_period: '1m',
      rate_per_key: true,
    });
    const inMs = await env.call('PUT', '/api/limits/rate/limits.both', {
      body: { limit: 5, period: 2500 },
    });
    expect(inMs.body.limit).toEqual({ kind: 'limits.both', limit: 5, period: 2500, perKey: false });
    expect((await env.call('GET', '/api/limits/rate/limits.both')).body.limit.period).toBe(2500);
    expect((await env.call('GET', '/api/limits')).body.rate).toEqual([
      { kind: 'limits.both', limit: 5, period: 2500, perKey: false },
    ]);

    const removed = await env.call('DELETE', '/api/limits/rate/limits.both');
    expect(removed.body).toEqual({ kind: 'limits.both', removed: 'rate' });
    expect(await stored('limits.both')).toMatchObject({ concurrency_max: 4, rate_limit: null });
    expect((await env.call('GET', '/api/limits/concurrency/limits.both')).status).toBe(200);
    await env.call('DELETE', '/api/limits/concurrency/limits.both');
  });

  it('answers 404 for a kind without the limit, on GET and DELETE', async () => {
    await env.call('PUT', '/api/limits/rate/limits.rated', { body: { limit: 1, period: '1s' } });
    for (const [method, path] of [
      ['GET', '/api/limits/concurrency/limits.none'],
      ['DELETE', '/api/limits/concurrency/limits.none'],
      ['GET', '/api/limits/rate/limits.none'],
      ['DELETE', '/api/limits/rate/limits.none'],
      // The kind has a rate limit, not a cap.
      ['DELETE', '/api/limits/concurrency/limits.rated'],
    ] as const) {
      const answer = await env.call(method, path);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error.code).toBe('NOT_FOUND');
      expect(answer.body.error.message).toMatch(/limit limits\.(none|rated) not found/);
    }
    expect(await stored('limits.rated')).toMatchObject({ rate_limit: 1 });
    await env.call('DELETE', '/api/limits/rate/limits.rated');
  });

  it('refuses bad input with a 400 naming the field, and writes nothing', async () => {
    const cases: [string, unknown, string][] = [
      ['/api/limits/concurrency/limits.bad', { max: 0 }, 'max'],
      ['/api/limits/concurrency/limits.bad', {}, 'max'],
      ['/api/limits/concurrency/limits.bad', { max: 1.5 }, 'max'],
      ['/api/limits/concurrency/limits.bad', { max: 1, perKey: 'yes' }, 'perKey'],
      ['/api/limits/concurrency/limits.bad', { max: 1, extra: 1 }, ''],
      ['/api/limits/concurrency/bad%20kind', { max: 1 }, 'kind'],
      ['/api/limits/rate/limits.bad', { limit: 1, period: 'soon' }, 'period'],
      ['/api/limits/rate/limits.bad', { limit: 1, period: '31d' }, 'period'],
      ['/api/limits/rate/limits.bad', { limit: 1, period: 0 }, 'period'],
      ['/api/limits/rate/limits.bad', { period: '1s' }, 'limit'],
      ['/api/limits/rate/limits.bad', { limit: 2_000_000_000, period: '1s' }, 'limit'],
    ];
    for (const [path, body, field] of cases) {
      const answer = await env.call('PUT', path, { body });
      expect(answer.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION');
      expect(answer.body.error.issues.map((i: { path: string }) => i.path)).toContain(field);
    }
    const bad = await env.call('PUT', '/api/limits/concurrency/limits.bad', { raw: '{' });
    expect(bad.status).toBe(400);
    expect(await env.query('SELECT kind FROM cyclone_limits')).toEqual([]);
  });

  it('follows the token and cross-site rules of the other changes', async () => {
    const guarded = createServer({
      client: env.client,
      token: 's3cret',
      readOnlyToken: 'reader',
      logger: testLogger,
    });
    try {
      const path = '/api/limits/concurrency/limits.guarded';
      const body = { max: 2 };
      expect((await request(guarded, 'PUT', path, { body })).status).toBe(401);
      const reader = { Authorization: 'Bearer reader' };
      expect((await request(guarded, 'PUT', path, { body, headers: reader })).status).toBe(403);
      expect((await request(guarded, 'GET', '/api/limits', { headers: reader })).status).toBe(200);
      const writer = { Authorization: 'Bearer s3cret' };
      const crossSite = await request(guarded, 'PUT', path, {
        body,
        headers: { ...writer, Origin: 'https://elsewhere.example' },
      });
      expect(crossSite.status).toBe(403);
      const notJson = await request(guarded, 'PUT', path, {
        raw: JSON.stringify(body),
        headers: { ...writer, 'Content-Type': 'text/plain' },
      });
      expect(notJson.status).toBe(403);
      expect(await stored('limits.guarded')).toBeUndefined();

      expect((await request(guarded, 'PUT', path, { body, headers: writer })).status).toBe(200);
      expect((await request(guarded, 'DELETE', path, { headers: reader })).status).toBe(403);
      expect((await request(guarded, 'DELETE', path, { headers: writer })).status).toBe(200);
      expect(await stored('limits.guarded')).toBeUndefined();
    } finally {
      await guarded.close();
    }
  });
});
