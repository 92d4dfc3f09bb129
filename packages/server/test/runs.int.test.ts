import { describe, expect, it } from 'vitest';
import { Client } from '@cyclone/client';
import { OnDepFailure, permanent, workflow } from '@cyclone/core';
import { createServer } from '../src/index.js';
import { eventually, request, testLogger, useServer } from './support.js';

const env = useServer();

const order = workflow('order')
  .task('charge', 'payments.charge')
  .task('ship', 'shipping.ship', { dependsOn: ['charge'] })
  .build();
const approval = workflow('approval')
  .waitSignal('approve', { signal: 'approved' })
  .waitTimer('cool-off', { waitFor: '1h' })
  .build();
const fragile = workflow('fragile').task('boom', 'fragile.boom', { maxAttempts: 1 }).build();

const unknownId = '0190f0c4-0000-7000-8000-000000000000';

describe('POST /api/runs', () => {
  it('starts a run of a workflow the database knows by name and answers 201 with its id', async () => {
    await env.client.submit(order, { first: true }); // stores the definition
    const answer = await env.call('POST', '/api/runs', {
      body: { workflow: 'order', input: { orderId: 7 }, options: { idempotencyKey: 'o-7' } },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.runId).toMatch(/^[0-9a-f-]{36}$/);
    const [row] = await env.query('SELECT workflow, input FROM cyclone_runs WHERE id = $1', [
      answer.body.runId,
    ]);
    expect(row).toMatchObject({ workflow: 'order', input: { orderId: 7 } });
    const again = await env.call('POST', '/api/runs', {
      body: { workflow: 'order', input: { orderId: 7 }, options: { idempotencyKey: 'o-7' } },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ runId: answer.body.runId, created: false });
  });

  it('answers 404 for a workflow no one registered', async () => {
    const answer = await env.call('POST', '/api/runs', { body: { workflow: 'nobody' } });
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('NOT_FOUND');
    expect(answer.body.error.message).toContain('nobody');
  });

  it('answers 400 naming the field for a bad body', async () => {
    const missing = await env.call('POST', '/api/runs', { body: { input: 1 } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('VALIDATION');
    expect(missing.body.error.issues.map((i: { path: string }) => i.path)).toEqual(['workflow']);

    const option = await env.call('POST', '/api/runs', {
      body: { workflow: 'order', options: { maxReclaims: 'many' } },
    });
    expect(option.status).toBe(400);
    expect(option.body.error.issues[0].path).toBe('options.maxReclaims');

    const duration = await env.call('POST', '/api/runs', {
      body: { workflow: 'order', options: { runDeadline: 'soon' } },
    });
    expect(duration.status).toBe(400);
    expect(duration.body.error.message).toContain('runDeadline');

    const notJson = await env.call('POST', '/api/runs', { raw: '{nope' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.issues[0].path).toBe('body');
  });
});

describe('reading runs', () => {
  it('lists runs by state and workflow, newest first, one page at a time', async () => {
    const a = await env.client.submit(order, { n: 1 });
    const b = await env.client.submit(order, { n: 2 });
    const page = await env.call('GET', '/api/runs?workflow=order&state=running&limit=1');
    expect(page.status).toBe(200);
    expect(page.body.runs.map((r: { id: string }) => r.id)).toEqual([b.runId]);
    expect(page.body.nextCursor).toEqual(expect.any(String));
    const next = await env.call(
      'GET',
      `/api/runs?workflow=order&state=running&limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`,
    );
    expect(next.body.runs.map((r: { id: string }) => r.id)).toEqual([a.runId]);
    const none = await env.call('GET', '/api/runs?state=failed,cancelled&workflow=order');
    expect(none.body.runs).toEqual([]);
    const since = await env.call(
      'GET',
      `/api/runs?since=${new Date(Date.now() + 60_000).toISOString()}`,
    );
    expect(since.body.runs).toEqual([]);
  });

  it('answers 400 naming the query parameter', async () => {
    const state = await env.call('GET', '/api/runs?state=sleeping');
    expect(state.status).toBe(400);
    expect(state.body.error.issues[0].path).toMatch(/^state/);
    const limit = await env.call('GET', '/api/runs?limit=0');
    expect(limit.body.error.issues[0].path).toBe('limit');
    const since = await env.call('GET', '/api/runs?since=yesterday');
    expect(since.body.error.issues[0].path).toBe('since');
    const unknown = await env.call('GET', '/api/runs?colour=red');
    expect(unknown.status).toBe(400);
  });

  it('shows a run with its steps, and its events', async () => {
    const { runId } = await env.client.submit(order, { n: 3 });
    const answer = await env.call('GET', `/api/runs/${runId}`);
    expect(answer.status).toBe(200);
    expect(answer.body.run).toMatchObject({ id: runId, workflow: 'order', state: 'running' });
    expect(
      answer.body.steps.map((s: { node: string; state: string }) => [s.node, s.state]),
    ).toEqual([
      ['charge', 'available'],
      ['ship', 'pending'],
    ]);
    expect(answer.body.steps[1].dependsOn).toEqual(['charge']);
    const events = await env.call('GET', `/api/runs/${runId}/events`);
    expect(events.status).toBe(200);
    expect(events.body.events.length).toBeGreaterThan(0);
    expect(events.body.events[0]).toMatchObject({ runId, type: expect.any(String) });
  });

  it('answers 404 for an unknown run, whatever the route', async () => {
    for (const path of [
      `/api/runs/${unknownId}`,
      '/api/runs/not-a-uuid',
      `/api/runs/${unknownId}/events`,
    ]) {
      const answer = await env.call('GET', path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error.code, path).toBe('NOT_FOUND');
    }
    for (const action of ['cancel', 'pause', 'resume', 'retry-all']) {
      const answer = await env.call('POST', `/api/runs/${unknownId}/${action}`);
      expect(answer.status, action).toBe(404);
    }
    expect((await env.call('GET', '/api/nothing-here')).status).toBe(404);
  });
});

describe('GET /api/runs/:id/nodes/:node/explain', () => {
  it('answers why a node is not running, from the rows the engine acts on', async () => {
    const { runId } = await env.client.submit(order, {});
    const answer = await env.call('GET', `/api/runs/${runId}/nodes/ship/explain`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      node: 'ship',
      state: 'pending',
      reason: 'dependencies',
      waitingOn: ['charge'],
    });
    expect(answer.body.message).toContain('charge');
  });

  it('answers 404 for an unknown node or run', async () => {
    const { runId } = await env.client.submit(order, {});
    const node = await env.call('GET', `/api/runs/${runId}/nodes/nothing/explain`);
    expect(node.status).toBe(404);
    expect(node.body.error.code).toBe('NOT_FOUND');
    const run = await env.call('GET', `/api/runs/${unknownId}/nodes/ship/explain`);
    expect(run.status).toBe(404);
  });
});

describe('a child node whose child run gave no result', () => {
  it('answers 409 CHILD_NOT_RETRYABLE to a retry, and changes nothing', async () => {
    // The child contains its discard (pdf cancels its branch) and completes without its result.
    const child = workflow('srv-noresult')
      .task('a', 'srv-noresult.a')
      .task('pdf', 'srv-noresult.pdf', {
        dependsOn: ['a'],
        onDepFailure: OnDepFailure.CancelBranch,
      })
      .task('b', 'srv-noresult.b')
      .build();
    const parent = workflow('srv-noresult-parent')
      .child('kid', { workflow: 'srv-noresult', result: 'pdf' })
      .build();
    await env.startWorker({
      workflows: [child],
      handlers: {
        'srv-noresult.a': () => Promise.reject(permanent(new Error('nope'))),
        'srv-noresult.pdf': () => Promise.resolve('never'),
        'srv-noresult.b': () => Promise.resolve('b'),
      },
    });
    const { runId } = await env.client.submit(parent, null);
    expect((await env.client.wait(runId, { timeout: '20s' })).state).toBe('failed');

    const answer = await env.call('POST', `/api/runs/${runId}/retry`, { body: { node: 'kid' } });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toMatchObject({ code: 'CHILD_NOT_RETRYABLE' });
    expect(answer.body.error.reason).toEqual(expect.any(String));
    expect((await env.client.getRun(runId)).state).toBe('failed');
  });
});

describe('operator actions', () => {
  it('pauses, resumes and cancels a run, answering 409 with the code and reason of each refusal', async () => {
    const { runId } = await env.client.submit(order, {});
    const post = (action: string) => env.call('POST', `/api/runs/${runId}/${action}`);

    const paused = await post('pause');
    expect(paused.status).toBe(200);
    expect(paused.body.run.state).toBe('paused');

    const pausedAgain = await post('pause');
    expect(pausedAgain.status).toBe(409);
    expect(pausedAgain.body.error).toMatchObject({
      code: 'ALREADY_PAUSED',
      reason: expect.any(String),
    });
    expect(pausedAgain.body.error.message).toContain(runId);

    expect((await post('resume')).body.run.state).toBe('running');
    const notPaused = await post('resume');
    expect(notPaused.status).toBe(409);
    expect(notPaused.body.error).toMatchObject({ code: 'NOT_PAUSED', reason: expect.any(String) });

    const cancelled = await post('cancel');
    expect(cancelled.body.run.state).toBe('cancelled');
    const [row] = await env.query('SELECT state FROM cyclone_runs WHERE id = $1', [runId]);
    expect(row).toEqual({ state: 'cancelled' });

    const terminal = await post('cancel');
    expect(terminal.status).toBe(409);
    expect(terminal.body.error).toEqual({
      code: 'ALREADY_TERMINAL',
      reason: 'terminal',
      message: expect.stringContaining('terminal'),
    });
    expect((await post('pause')).body.error.code).toBe('ALREADY_TERMINAL');
  });

  it('refuses to retry a node that is not discarded (409 NO_EXHAUSTED_NODE) and names a missing node (400)', async () => {
    const { runId } = await env.client.submit(order, {});
    const refused = await env.call('POST', `/api/runs/${runId}/retry`, {
      body: { node: 'charge' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'NO_EXHAUSTED_NODE',
      reason: expect.any(String),
    });
    const none = await env.call('POST', `/api/runs/${runId}/retry-all`);
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('NO_EXHAUSTED_NODE');
    const missing = await env.call('POST', `/api/runs/${runId}/retry`, { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.issues[0].path).toBe('node');
  });

  it('retries a discarded node and retries all of them, and the database moves', async () => {
    let attempts = 0;
    await env.startWorker({
      handlers: {
        'fragile.boom': async () => {
          attempts += 1;
          throw permanent(new Error('card declined'));
        },
      },
      workflows: [fragile],
    });
    const { runId } = await env.client.submit(fragile, {});
    await eventually(
      async () => (await env.client.getRun(runId)).state === 'failed',
      'the run to fail',
    );

    const retried = await env.call('POST', `/api/runs/${runId}/retry`, { body: { node: 'boom' } });
    expect(retried.status).toBe(200);
    expect(retried.body.run.state).toBe('running');
    await eventually(
      async () => (await env.client.getRun(runId)).state === 'failed' && attempts === 2,
      'the retry to fail',
    );

    const all = await env.call('POST', `/api/runs/${runId}/retry-all`);
    expect(all.status).toBe(200);
    await eventually(() => attempts === 3, 'the third attempt');
  });

  it('delivers a signal with its payload, once per signal id', async () => {
    const { runId } = await env.client.submit(approval, {});
    const sent = await env.call('POST', `/api/runs/${runId}/signals/approved?id=s-1`, {
      body: { by: '<script>alert(1)</script>' },
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ duplicate: false, consumedBy: 'approve' });
    expect(await env.client.output(runId, 'approve')).toEqual({
      payload: { by: '<script>alert(1)</script>' },
      timedOut: false,
    });
    const again = await env.call('POST', `/api/runs/${runId}/signals/approved?id=s-1`, {
      body: { by: 'bob' },
    });
    expect(again.body).toMatchObject({ duplicate: true });

    await env.client.cancel(runId);
    const late = await env.call('POST', `/api/runs/${runId}/signals/approved`, { body: 1 });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('ALREADY_TERMINAL');

    const badName = await env.call('POST', `/api/runs/${runId}/signals/${'x'.repeat(300)}`);
    expect(badName.status).toBe(400);
  });
});
