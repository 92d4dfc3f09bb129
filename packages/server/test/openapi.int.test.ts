/**
 * `GET /api/openapi.json`: a valid OpenAPI 3.1 document (checked by an OpenAPI validator) that
 * describes exactly the routes the server serves, served without a token but behind the `Host`
 * check; and every operation's real answers, errors included, match what it describes.
 *
 * A new route is described by adding it through `api.route` (see the server README); this file
 * then fails until a call of it below is added to "answers every operation as described".
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { buildApp } from '../src/app.js';
import type { ServerContext } from '../src/http/context.js';
import { EngineMetrics } from '../src/live/engine-metrics.js';
import { NotificationHub } from '../src/live/notification-hub.js';
import { HostPolicy } from '../src/security/host-policy.js';
import { createServer } from '../src/index.js';
import { AnswerChecker, type Description } from './openapi-support.js';
import { eventually, request, testLogger, useServer } from './support.js';

const env = useServer();

/** The description, as served. */
async function served(): Promise<Description> {
  const answer = await env.call<Description>('GET', '/api/openapi.json');
  expect(answer.status).toBe(200);
  return answer.body;
}

describe('the API description', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate((await served()) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes every route the server serves, and only those', async () => {
    const ctx: ServerContext = {
      client: env.client,
      tokens: {},
      hosts: new HostPolicy([], () => undefined),
      corsOrigins: new Set(),
      logger: testLogger,
      hub: new NotificationHub(env.client, testLogger),
      metrics: new EngineMetrics(env.client),
      workflows: new Map(),
    };
    const { app } = buildApp(ctx);
    // Middleware (`app.use`) is listed as method ALL; every other entry is a route.
    const routes = app.routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => `${route.method} ${route.path}`);
    const described = Object.entries((await served()).paths).flatMap(([path, operations]) =>
      Object.keys(operations).map(
        (method) => `${method.toUpperCase()} ${path.replaceAll(/\{([^}]+)\}/g, ':$1')}`,
      ),
    );
    expect(new Set(routes).size).toBe(routes.length);
    expect([...routes].sort()).toEqual([...described].sort());
  });

  it('is served without a token, but after the Host check', async () => {
    const guarded = createServer({ client: env.client, token: 's3cret', logger: testLogger });
    try {
      const description = await request(guarded, 'GET', '/api/openapi.json');
      expect(description.status).toBe(200);
      expect(description.body.openapi).toBe('3.1.0');
      expect((await request(guarded, 'GET', '/api/runs')).status).toBe(401);
      const rebound = await request(guarded, 'GET', '/api/openapi.json', {
        headers: { Host: 'attacker.example' },
      });
      expect(rebound.status).toBe(403);
      expect(rebound.body.error.code).toBe('HOST_NOT_ALLOWED');
      // Its description says so: public routes need no security, the others one of the schemes.
      const { paths } = description.body as Description;
      expect(paths['/api/openapi.json']!['get']!.security).toEqual([]);
      expect(paths['/healthz']!['get']!.security).toEqual([]);
      expect(paths['/api/runs']!['get']!.security).toBeUndefined();
    } finally {
      await guarded.close();
    }
  });
});

describe('the answers', () => {
  let checker: AnswerChecker;

  /** Calls `template` with its `{params}` filled in, and checks the answer. */
  async function call(
    method: string,
    template: string,
    params: Record<string, string> = {},
    options: Parameters<typeof request>[3] & { query?: string } = {},
  ) {
    const path =
      template.replaceAll(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name]!)) +
      (options.query ?? '');
    const answer = await env.call(method, path, options);
    checker.check(method, template, answer);
    return answer;
  }

  beforeAll(async () => {
    checker = new AnswerChecker(await served());
  });

  it('answers every operation as described, errors included', async () => {
    const waiting = workflow('described')
      .task('first', 'described.first')
      .waitSignal('approval', { signal: 'approved', dependsOn: ['first'] })
      .build();
    await env.startWorker({
      handlers: { 'described.first': async () => ({ done: true }) },
      workflows: [waiting],
    });
    const failedRunId = await env.failedRun('described-failing');
    const submitted = await call('POST', '/api/runs', {}, { body: { workflow: 'described' } });
    expect(submitted.status).toBe(201);
    const runId = submitted.body.runId as string;
    await eventually(
      async () => (await env.client.listSteps(runId)).some((s) => s.state === 'waiting_signal'),
      'the run to wait for its signal',
    );
    await call('POST', '/api/runs', {}, { body: { workflow: 'nobody' } });
    await call('POST', '/api/runs', {}, { body: { input: 1 } });

    await call('GET', '/healthz');
    await call('GET', '/api/openapi.json');
    await call('GET', '/api/session');
    await call('GET', '/api/runs', {}, { query: '?state=running,failed&limit=10' });
    await call('GET', '/api/runs', {}, { query: '?limit=0' });
    await call('GET', '/api/runs/{id}', { id: runId });
    await call('GET', '/api/runs/{id}', { id: '0193c1a2-7d3e-7000-8a1b-2f3c4d5e6f70' });
    await call('GET', '/api/runs/{id}/events', { id: runId }, { query: '?after=0' });
    await call('GET', '/api/runs/{id}/nodes/{node}/explain', { id: runId, node: 'approval' });
    await call('GET', '/api/runs/{id}/nodes/{node}/explain', { id: runId, node: 'first' });

    await call(
      'POST',
      '/api/runs/{id}/signals/{name}',
      { id: runId, name: 'approved' },
      {
        body: { by: 'ann' },
        query: '?id=signal-1',
      },
    );
    const moved = await env.client.enqueue('described.moved', {}, { scheduledAt: '1h' });
    const transition = '/api/runs/{id}/nodes/{node}/transition';
    const node = { id: moved.runId, node: 'described.moved' };
    await call('POST', transition, node, { body: { to: 'completed', reason: 'r' } });
    await call('POST', transition, node, { body: { to: 'somewhere', reason: 'r' } });
    await call('POST', transition, node, { body: { to: 'completed', reason: 'r', force: true } });
    await call('POST', '/api/runs/{id}/pause', { id: failedRunId });
    await call('POST', '/api/runs/{id}/retry', { id: failedRunId }, { body: {} });
    await call('POST', '/api/runs/{id}/retry', { id: failedRunId }, { body: { node: 'work' } });
    await call('POST', '/api/runs/{id}/retry-all', { id: failedRunId });
    const paused = await env.client.enqueue('described.later', {}, { scheduledAt: '1h' });
    await call('POST', '/api/runs/{id}/pause', { id: paused.runId });
    await call('POST', '/api/runs/{id}/resume', { id: paused.runId });
    await call('POST', '/api/runs/{id}/cancel', { id: paused.runId });
    const refused = await call('POST', '/api/runs/{id}/cancel', { id: paused.runId });
    expect(refused.status).toBe(409);

    await env.failedRun('described-dlq');
    await call('GET', '/api/dlq', {}, { query: '?reason=permanent' });
    await call('GET', '/api/dlq', {}, { query: '?reason=bogus' });
    await call('POST', '/api/dlq/redrive', {}, { body: { reason: 'permanent', limit: 1 } });

    await env.client.schedule({ id: 'described-nightly', cron: '0 3 * * *', kind: 'x.y' });
    await call('GET', '/api/schedules', {}, { query: '?fires=2' });
    await call('GET', '/api/schedules/{id}', { id: 'described-nightly' });
    await call('GET', '/api/schedules/{id}', { id: 'nobody' });
    await call('GET', '/api/schedules/{id}/fires', { id: 'described-nightly' });
    await call('POST', '/api/schedules/{id}/pause', { id: 'described-nightly' });
    await call('POST', '/api/schedules/{id}/resume', { id: 'described-nightly' });
    await call(
      'POST',
      '/api/schedules/{id}/backfill',
      { id: 'described-nightly' },
      {
        body: { from: '2026-01-01T00:00:00Z', to: '2026-01-03T00:00:00Z' },
      },
    );
    await call('DELETE', '/api/schedules/{id}', { id: 'described-nightly' });
    await call('DELETE', '/api/schedules/{id}', { id: 'described-nightly' });

    const kind = { kind: 'described.limited' };
    await call('PUT', '/api/limits/concurrency/{kind}', kind, { body: { max: 2, perKey: true } });
    await call('PUT', '/api/limits/concurrency/{kind}', kind, { body: { max: 0 } });
    await call('GET', '/api/limits/concurrency/{kind}', kind);
    await call('PUT', '/api/limits/rate/{kind}', kind, { body: { limit: 10, period: '1m' } });
    await call('PUT', '/api/limits/rate/{kind}', kind, { body: { limit: 10, period: 'soon' } });
    await call('GET', '/api/limits/rate/{kind}', kind);
    await call('GET', '/api/limits');
    await call('DELETE', '/api/limits/concurrency/{kind}', kind);
    await call('DELETE', '/api/limits/concurrency/{kind}', kind);
    await call('GET', '/api/limits/concurrency/{kind}', kind);
    await call('DELETE', '/api/limits/rate/{kind}', kind);
    await call('GET', '/api/limits/rate/{kind}', { kind: 'bad kind' });
    await call('PUT', '/api/fair-share/{kind}', kind, { body: { weights: { a: 3 } } });
    await call('PUT', '/api/fair-share/{kind}', kind, { body: { weights: { a: 0 } } });
    await call('GET', '/api/fair-share/{kind}', kind);
    await call('GET', '/api/fair-share');
    await call('DELETE', '/api/fair-share/{kind}', kind);
    await call('DELETE', '/api/fair-share/{kind}', kind);
    await call('GET', '/api/fair-share/{kind}', { kind: 'bad kind' });
    await call('GET', '/api/queues');
    await call('GET', '/api/run-states');
    await call('GET', '/api/workers');
    await call('GET', '/api/stats', {}, { query: '?window=30m' });
    await call('GET', '/api/stats', {}, { query: '?window=2d' });

    await call('GET', '/metrics');
    await call('GET', '/');
    await call('GET', '/assets/{name}', { name: 'app.js' });
    await call('GET', '/assets/{name}', { name: 'style.css' });
    await call('GET', '/assets/{name}', { name: 'nothing.js' });
    await streamOpens();

    const operations = Object.values(checker.description.paths).flatMap((byMethod) =>
      Object.values(byMethod).map((operation) => operation.operationId),
    );
    expect([...checker.seen].sort()).toEqual([...new Set(operations)].sort());
  });

  /** The event stream answers as described; read up to its first event, then left. */
  async function streamOpens(): Promise<void> {
    const controller = new AbortController();
    const response = await env.server.fetch(
      new Request('http://localhost/api/events/stream', { signal: controller.signal }),
    );
    checker.check('GET', '/api/events/stream', {
      status: response.status,
      body: undefined,
      text: '',
      headers: response.headers,
    });
    controller.abort();
    await response.body?.cancel().catch(() => undefined);
  }

  it('answers 401 and 403 as described, on a server with a token', async () => {
    const guarded = createServer({
      client: env.client,
      token: 's3cret',
      readOnlyToken: 'reader',
      logger: testLogger,
    });
    try {
      const unauthorized = await request(guarded, 'GET', '/api/runs');
      checker.check('GET', '/api/runs', unauthorized);
      expect(unauthorized.status).toBe(401);
      const forbidden = await request(guarded, 'POST', '/api/dlq/redrive', {
        headers: { Authorization: 'Bearer reader' },
      });
      checker.check('POST', '/api/dlq/redrive', forbidden);
      expect(forbidden.status).toBe(403);
    } finally {
      await guarded.close();
    }
  });
});
