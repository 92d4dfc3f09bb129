import { describe, expect, it } from 'vitest';
import { createServer, InsecureBindError } from '../src/index.js';
import { request, testLogger, useServer } from './support.js';

const env = useServer({ token: 'full-secret', readOnlyToken: 'read-secret' });

const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

describe('tokens', () => {
  it('answers 401 without a token or with a wrong one, and lets /healthz through', async () => {
    const none = await env.call('GET', '/api/runs');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHORIZED');
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="cyclone"');
    const page = await env.call('GET', '/', { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(401);
    expect(page.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await env.call('GET', '/api/runs', bearer('full-secreT'))).status).toBe(401);
    expect((await env.call('GET', '/metrics')).status).toBe(401);
    expect((await env.call('GET', '/')).status).toBe(401);
    expect(
      (await env.call('GET', '/api/runs', { headers: { Authorization: 'full-secret' } })).status,
    ).toBe(401);
    const health = await env.call('GET', '/healthz');
    expect(health.status).toBe(200);
  });

  it('lets the full token do everything and the read-only token only read (403 on POST)', async () => {
    const { runId } = await env.client.enqueue('auth.job', {});
    expect((await env.call('GET', '/api/runs', bearer('full-secret'))).status).toBe(200);
    expect((await env.call('GET', `/api/runs/${runId}`, bearer('read-secret'))).status).toBe(200);

    const forbidden = await env.call('POST', `/api/runs/${runId}/cancel`, bearer('read-secret'));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    expect((await env.client.getRun(runId)).state).toBe('running');

    const cancelled = await env.call('POST', `/api/runs/${runId}/cancel`, bearer('full-secret'));
    expect(cancelled.status).toBe(200);
    expect((await env.client.getRun(runId)).state).toBe('cancelled');
  });

  it('lets only the full token delete a schedule', async () => {
    await env.client.schedule({ id: 'auth-nightly', cron: '0 3 * * *', kind: 'auth.job' });
    const forbidden = await env.call(
      'DELETE',
      '/api/schedules/auth-nightly',
      bearer('read-secret'),
    );
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    expect((await env.client.getSchedule('auth-nightly')).id).toBe('auth-nightly');
    const deleted = await env.call('DELETE', '/api/schedules/auth-nightly', bearer('full-secret'));
    expect(deleted.status).toBe(200);
    expect(deleted.body.schedule.id).toBe('auth-nightly');
    expect((await env.client.listSchedules()).map((s) => s.id)).not.toContain('auth-nightly');
  });

  it('accepts the token as the password of Basic credentials, as a browser sends them', async () => {
    const basic = (password: string) => ({
      headers: { Authorization: `Basic ${Buffer.from(`ops:${password}`).toString('base64')}` },
    });
    expect((await env.call('GET', '/', basic('full-secret'))).status).toBe(200);
    expect((await env.call('GET', '/', basic('nope'))).status).toBe(401);
  });

  it('lets Basic credentials read but not change: a change needs the token as Bearer', async () => {
    const { runId } = await env.client.enqueue('auth.basic', {});
    const basic = { headers: { Authorization: `Basic ${btoa('ops:full-secret')}` } };
    expect((await env.call('GET', `/api/runs/${runId}`, basic)).status).toBe(200);
    const refused = await env.call('POST', `/api/runs/${runId}/cancel`, basic);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('BEARER_REQUIRED');
    const [row] = await env.query('SELECT state FROM cyclone_runs WHERE id = $1', [runId]);
    expect(row).toEqual({ state: 'running' });
    expect(
      (await env.call('POST', `/api/runs/${runId}/cancel`, bearer('full-secret'))).status,
    ).toBe(200);
  });
});

describe('GET /api/session', () => {
  it('hands the token the request presented back, to send as Bearer, never cached', async () => {
    const viaBasic = await env.call('GET', '/api/session', {
      headers: { Authorization: `Basic ${btoa('ops:full-secret')}` },
    });
    expect(viaBasic.status).toBe(200);
    expect(viaBasic.body).toEqual({ access: 'full', bearer: 'full-secret' });
    expect(viaBasic.headers.get('cache-control')).toBe('no-store');
    const reader = await env.call('GET', '/api/session', bearer('read-secret'));
    expect(reader.body).toEqual({ access: 'read', bearer: 'read-secret' });
    expect((await env.call('GET', '/api/session')).status).toBe(401);
  });

  it("answers the server's own pages only", async () => {
    const auth = `Basic ${btoa('ops:full-secret')}`;
    const foreign = await env.call('GET', '/api/session', {
      headers: { Authorization: auth, Origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('FOREIGN_ORIGIN');
    const crossSite = await env.call('GET', '/api/session', {
      headers: { Authorization: auth, 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(crossSite.body.error.code).toBe('CROSS_SITE');
    const own = await env.call('GET', '/api/session', {
      headers: { Authorization: auth, Origin: 'http://localhost', 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(own.status).toBe(200);
  });

  it('on a server without a token, says so: full access and no bearer', async () => {
    const open = createServer({ client: env.client, logger: testLogger });
    const answer = await request(open, 'GET', '/api/session');
    expect(answer.body).toEqual({ access: 'full', bearer: null });
    await open.close();
  });
});

describe('binding', () => {
  it('refuses to listen on 0.0.0.0 without a token', async () => {
    const server = createServer({ client: env.client, logger: testLogger });
    await expect(server.listen(0, '0.0.0.0')).rejects.toBeInstanceOf(InsecureBindError);
    await expect(server.listen(0, '0.0.0.0')).rejects.toThrow(/without a token/);
    expect(() => createServer({ client: env.client, host: '0.0.0.0', logger: testLogger })).toThrow(
      InsecureBindError,
    );
    await server.close();
  });

  it('listens on 127.0.0.1 by default and answers /healthz once it serves; with a token on 0.0.0.0', async () => {
    const local = createServer({ client: env.client, logger: testLogger });
    const address = await local.listen(0);
    expect(address.host).toBe('127.0.0.1');
    const health = await fetch(`${address.url}/healthz`);
    expect(health.status).toBe(200);
    expect((await fetch(`${address.url}/api/runs`)).status).toBe(200);
    await local.close();

    const open = createServer({ client: env.client, token: 't', logger: testLogger });
    const openAddress = await open.listen(0, '0.0.0.0');
    const port = openAddress.port;
    expect((await fetch(`http://127.0.0.1:${port}/api/runs`)).status).toBe(401);
    expect(
      (await fetch(`http://127.0.0.1:${port}/api/runs`, { headers: { Authorization: 'Bearer t' } }))
        .status,
    ).toBe(200);
    await open.close();
  });
});

describe('errors', () => {
  it('answers 503 when the database cannot be reached, without internals', async () => {
    const server = createServer({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
      logger: testLogger,
    });
    const answer = await request(server, 'GET', '/api/runs');
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe('DATABASE_UNREACHABLE');
    expect(answer.text).not.toMatch(/at .*\.ts:\d+/);
    expect((await request(server, 'GET', '/healthz')).status).toBe(200);
    await server.close();
  });
});
