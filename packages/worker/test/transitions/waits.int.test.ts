import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { eventually } from '../engine.js';
import { eventRows, runRow, stepReaches, stepRow, useTransitionEngine } from './helpers.js';

const engine = useTransitionEngine();

describe('wait nodes through a real worker', () => {
  it('runs a workflow with every wait kind; the downstream handler reads their outputs in ctx.deps', async () => {
    const order = workflow('order-waits')
      .task('charge', 'wx.charge')
      .waitSignal('approval', { signal: 'approved', dependsOn: ['charge'], maxWait: '1h' })
      .waitAny('first-reply', { signals: ['accepted', 'declined'], dependsOn: ['charge'] })
      .waitN('votes', { signal: 'vote', n: 2 })
      .waitTimer('cool-off', { waitFor: '100ms', dependsOn: ['charge'] })
      .task('ship', 'wx.ship', {
        dependsOn: ['approval', 'first-reply', 'votes', 'cool-off'],
      })
      .build();
    let seen: Record<string, unknown> | undefined;
    await engine.startWorker({
      handlers: {
        'wx.charge': () => Promise.resolve({ charged: true }),
        'wx.ship': (ctx) => {
          seen = { ...ctx.deps };
          return Promise.resolve('shipped');
        },
      },
    });
    const { client } = engine;
    const { runId } = await client.submit(order, { orderId: 7 });
    // Signals sent before the waits are promoted are kept for them.
    await client.signal(runId, 'vote', 'yes', { id: 'v1' });
    await client.signal(runId, 'approved', { by: 'ann' });
    await stepReaches(engine, runId, 'charge', 'completed');
    await stepReaches(engine, runId, 'approval', 'completed');
    await client.signal(runId, 'declined', 'too late');
    await client.signal(runId, 'vote', 'no', { id: 'v2' });
    await client.signal(runId, 'vote', 'no', { id: 'v2' });
    // The timer fires by the store's due-wait pass (a scheduler tick), never early.
    await eventually(
      async () => (await engine.store.fireDueWaits()).fired > 0 || undefined,
      'the cool-off timer to fire',
    );
    await stepReaches(engine, runId, 'ship', 'completed');
    expect((await client.wait(runId, { timeout: '10s' })).state).toBe('completed');

    expect(seen).toMatchObject({
      approval: { payload: { by: 'ann' }, timedOut: false },
      'first-reply': { signal: 'declined', payload: 'too late', timedOut: false },
      votes: { payloads: ['yes', 'no'], timedOut: false },
      'cool-off': { firedAt: expect.any(String) },
    });
    const timer = await stepRow(engine, runId, 'cool-off');
    expect(
      new Date((timer.output as { firedAt: string }).firedAt).getTime(),
    ).toBeGreaterThanOrEqual(timer.scheduled_at.getTime());
    // No worker ever claimed a wait node.
    for (const node of ['approval', 'first-reply', 'votes', 'cool-off']) {
      const step = await stepRow(engine, runId, node);
      expect(step).toMatchObject({ attempts: 0, claim_token: null, started_at: null });
    }
    const types = (await eventRows(engine, runId)).map((e) => `${e.node ?? 'run'}:${e.type}`);
    expect(types).not.toContain('approval:step_started');
    expect(types).toContain('cool-off:timer_fired');
    expect((await runRow(engine, runId)).open_steps).toBe(0);
  });
});
