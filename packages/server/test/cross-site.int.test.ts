/**
 * What a page elsewhere can make a browser send, against real servers listening on a port: each
 * request is refused with 403 before it changes anything, and the database is compared, by SQL,
 * before and after. The same changes, sent as the dashboard sends them, go through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { createServer, type CycloneServer } from '../src/index.js';
import { send, testLogger, useServer } from './support.js';

const env = useServer();

const waiting = workflow('guarded-wait').waitSignal('go', { signal: 'go' }).build();

const evil = 'http://evil.example';
const json = 'application/json';
const form = 'application/x-www-form-urlencoded';
const basic = (password: string) => `Basic ${Buffer.from(`ops:${password}`).toString('base64')}`;

let open: CycloneServer;
let guarded: CycloneServer;
/** `127.0.0.1:port` of each server. */
let openHost: string;
let guardedHost: string;
let failedRun: string;
let waitingRun: string;

/** Every row an action of the API could change, in a stable order. */
async function snapshot(): Promise<unknown> {
  const [row] = await env.query(`
    SELECT (SELECT json_agg(json_build_object('id', id, 'state', state) ORDER BY id)
              FROM cyclone_runs) AS runs,
           (SELECT json_agg(json_build_object('id', id, 'state', state, 'attempts', attempts,
                                              'max_attempts', max_attempts) ORDER BY id)
              FROM cyclone_steps) AS steps,
           (SELECT json_agg(json_build_object('id', id, 'enabled', enabled) ORDER BY id)
              FROM cyclone_schedules) AS schedules,
           (SELECT count(*) FROM cyclone_signals) AS signals`);
  return row;
}

beforeAll(async () => {
  failedRun = await env.failedRun('guarded');
  waitingRun = (await env.client.submit(waiting, {})).runId;
  await env.client.schedule({ id: 'guarded-nightly', cron: '0 3 * * *', kind: 'x.y', input: {} });
  open = createServer({ client: env.client, logger: testLogger });
  openHost = new URL((await open.listen(0)).url).host;
  guarded = createServer({ client: env.client, token: 'full-secret', logger: testLogger });
  guardedHost = new URL((await guarded.listen(0)).url).host;
}, 60_000);

afterAll(async () => {
  await open?.close();
  await guarded?.close();
});

/** One request a tricked browser (or a rebinding page) sends, and the code it must be refused with. */
interface Attack {
  readonly what: string;
  readonly server: () => string;
  readonly method?: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly code: string;
}

const attacks: Attack[] = [
  {
    what: 'a form post from another site',
    server: () => openHost,
    path: '/api/dlq/redrive',
    headers: { 'Content-Type': form, Origin: evil, 'Sec-Fetch-Site': 'cross-site' },
    body: 'reason=permanent',
    code: 'CROSS_SITE',
  },
  {
    what: 'a form post from a browser without fetch metadata',
    server: () => openHost,
    path: '/api/dlq/redrive',
    headers: { 'Content-Type': form, Origin: evil },
    body: 'reason=permanent',
    code: 'FOREIGN_ORIGIN',
  },
  {
    what: 'a text/plain JSON post from another page',
    server: () => openHost,
    path: '/api/dlq/redrive',
    headers: { 'Content-Type': 'text/plain', Origin: evil },
    body: '{}',
    code: 'FOREIGN_ORIGIN',
  },
  {
    what: "a text/plain JSON post, even from the server's own origin",
    server: () => openHost,
    path: '/api/runs',
    headers: { 'Content-Type': 'text/plain;charset=UTF-8', Origin: 'http://{host}' },
    body: JSON.stringify({ workflow: 'guarded', input: {} }),
    code: 'JSON_REQUIRED',
  },
  {
    what: 'a JSON post from a foreign origin',
    server: () => openHost,
    path: '/api/runs/{waiting}/cancel',
    headers: { 'Content-Type': json, Origin: evil },
    code: 'FOREIGN_ORIGIN',
  },
  {
    what: 'an origin on the same host, another port',
    server: () => openHost,
    path: '/api/runs/{failed}/retry-all',
    headers: { 'Content-Type': json, Origin: 'http://127.0.0.1:1' },
    code: 'FOREIGN_ORIGIN',
  },
  {
    what: 'the opaque origin of a sandboxed frame',
    server: () => openHost,
    path: '/api/runs/{waiting}/signals/go',
    headers: { 'Content-Type': json, Origin: 'null' },
    body: '{"from":"frame"}',
    code: 'FOREIGN_ORIGIN',
  },
  {
    what: 'Sec-Fetch-Site: cross-site',
    server: () => openHost,
    path: '/api/schedules/guarded-nightly/pause',
    headers: { 'Content-Type': json, 'Sec-Fetch-Site': 'cross-site' },
    code: 'CROSS_SITE',
  },
  {
    what: 'a cross-site DELETE of a schedule',
    server: () => openHost,
    method: 'DELETE',
    path: '/api/schedules/guarded-nightly',
    headers: { Origin: evil, 'Sec-Fetch-Site': 'cross-site' },
    code: 'CROSS_SITE',
  },
  {
    what: 'an empty body without a content type',
    server: () => openHost,
    path: '/api/runs/{waiting}/pause',
    headers: {},
    code: 'JSON_REQUIRED',
  },
  {
    what: "a foreign Host (a rebound name: the page's own origin)",
    server: () => openHost,
    path: '/api/dlq/redrive',
    headers: {
      Host: 'evil.example:{port}',
      Origin: 'http://evil.example:{port}',
      'Sec-Fetch-Site': 'same-origin',
      'Content-Type': json,
    },
    body: '{}',
    code: 'HOST_NOT_ALLOWED',
  },
  {
    what: 'a foreign Host reading',
    server: () => openHost,
    method: 'GET',
    path: '/api/runs',
    headers: { Host: 'evil.example:{port}' },
    code: 'HOST_NOT_ALLOWED',
  },
  {
    what: "the browser's cached Basic credentials on a POST",
    server: () => guardedHost,
    path: '/api/runs/{waiting}/cancel',
    headers: { 'Content-Type': json, Authorization: basic('full-secret') },
    code: 'BEARER_REQUIRED',
  },
  {
    what: 'a form post with cached Basic credentials from another site',
    server: () => guardedHost,
    path: '/api/dlq/redrive',
    headers: {
      'Content-Type': form,
      Authorization: basic('full-secret'),
      Origin: evil,
      'Sec-Fetch-Site': 'cross-site',
    },
    body: 'reason=permanent',
    code: 'CROSS_SITE',
  },
  {
    what: 'a cross-site form post without credentials to a server with a token (no Basic prompt)',
    server: () => guardedHost,
    path: '/api/runs',
    headers: { 'Content-Type': form, Origin: evil, 'Sec-Fetch-Site': 'cross-site' },
    body: 'workflow=guarded',
    code: 'CROSS_SITE',
  },
];

/** An attack's text with `{host}`, `{port}`, `{waiting}` and `{failed}` filled in. */
function fill(text: string, host: string): string {
  return text
    .replace('{host}', host)
    .replace('{port}', host.split(':')[1]!)
    .replace('{waiting}', waitingRun)
    .replace('{failed}', failedRun);
}

describe('requests a browser was tricked into sending', () => {
  it('are each refused with 403 naming why, and change nothing in the database', async () => {
    const before = await snapshot();
    for (const attack of attacks) {
      const host = attack.server();
      const headers = Object.fromEntries(
        Object.entries(attack.headers).map(([name, value]) => [name, fill(value, host)]),
      );
      const answer = await send(
        `http://${host}${fill(attack.path, host)}`,
        attack.method ?? 'POST',
        headers,
        attack.body,
      );
      expect(answer.status, attack.what).toBe(403);
      expect(answer.body.error.code, attack.what).toBe(attack.code);
      expect(answer.body.error.message, attack.what).toMatch(/refused/);
      expect(answer.headers.get('access-control-allow-origin'), attack.what).toBeNull();
      expect(answer.headers.get('www-authenticate'), attack.what).toBeNull();
    }
    expect(await snapshot()).toEqual(before);
  });

  it('leave reads alone but give a foreign page no CORS header to read them by', async () => {
    const read = await send(`http://${openHost}/api/runs`, 'GET', { Origin: evil });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    // Nor load it into its own process by a tag or a no-cors fetch, or read it as anything but JSON.
    expect(read.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(read.headers.get('x-content-type-options')).toBe('nosniff');
    const preflight = await send(`http://${openHost}/api/dlq/redrive`, 'OPTIONS', {
      Origin: evil,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type',
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('go through when sent as the dashboard sends them', async () => {
    const own = { Origin: `http://${openHost}`, 'Sec-Fetch-Site': 'same-origin' };
    const redriven = await send(
      `http://${openHost}/api/dlq/redrive`,
      'POST',
      { ...own, 'Content-Type': json },
      '{}',
    );
    expect(redriven.status).toBe(200);
    expect(redriven.body.runs).toEqual([failedRun]);
    // An empty body passes when declared JSON; the token server takes its token as Bearer.
    const paused = await send(`http://${guardedHost}/api/runs/${waitingRun}/pause`, 'POST', {
      Origin: `http://${guardedHost}`,
      'Sec-Fetch-Site': 'same-origin',
      'Content-Type': json,
      Authorization: 'Bearer full-secret',
    });
    expect(paused.status).toBe(200);
    const [run] = await env.query('SELECT state FROM cyclone_runs WHERE id = $1', [waitingRun]);
    expect(run).toEqual({ state: 'paused' });
  });
});

describe('corsOrigins', () => {
  it('lets a named origin call the API with its own token, and no other', async () => {
    const ops = 'http://ops.example:3000';
    const server = createServer({
      client: env.client,
      token: 'cors-secret',
      corsOrigins: [ops],
      logger: testLogger,
    });
    const host = new URL((await server.listen(0)).url).host;
    try {
      const preflight = await send(
        `http://${host}/api/schedules/guarded-nightly/pause`,
        'OPTIONS',
        {
          Origin: ops,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,content-type',
        },
      );
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(ops);
      expect(preflight.headers.get('access-control-allow-headers')).toBe(
        'Authorization,Content-Type',
      );
      // Never credentials: the browser's cached Basic credentials cannot be used from there.
      expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();

      const fromOps = { Origin: ops, 'Sec-Fetch-Site': 'cross-site', 'Content-Type': json };
      const paused = await send(`http://${host}/api/schedules/guarded-nightly/pause`, 'POST', {
        ...fromOps,
        Authorization: 'Bearer cors-secret',
      });
      expect(paused.status).toBe(200);
      expect(paused.headers.get('access-control-allow-origin')).toBe(ops);
      const [schedule] = await env.query(
        "SELECT enabled FROM cyclone_schedules WHERE id = 'guarded-nightly'",
      );
      expect(schedule).toEqual({ enabled: false });

      const other = await send(`http://${host}/api/schedules/guarded-nightly/resume`, 'POST', {
        ...fromOps,
        Origin: evil,
        Authorization: 'Bearer cors-secret',
      });
      expect(other.status).toBe(403);
      expect(other.body.error.code).toBe('CROSS_SITE');
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      // The session route hands out the token: to the server's own pages only.
      const session = await send(`http://${host}/api/session`, 'GET', {
        Origin: ops,
        'Sec-Fetch-Site': 'cross-site',
        Authorization: 'Bearer cors-secret',
      });
      expect(session.status).toBe(403);
    } finally {
      await server.close();
    }
  });
});
