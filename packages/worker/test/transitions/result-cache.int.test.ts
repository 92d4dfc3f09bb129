import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { eventRows, stepRow, useTransitionEngine } from './helpers.js';

const engine = useTransitionEngine();

describe('pending -> completed by cache_hit', () => {
  it('completes a cached node from an earlier run without calling its handler; dependents read the output', async () => {
    const report = workflow('cache-e2e')
      .task('fetch', 'cache-e2e.fetch')
      .task('render', 'cache-e2e.render', {
        dependsOn: ['fetch'],
        cache: { ttl: '1h', key: 'reportId' },
      })
      .task('deliver', 'cache-e2e.deliver', { dependsOn: ['render'] })
      .build();
    const rendered: string[] = [];
    await engine.startWorker({
      handlers: {
        'cache-e2e.fetch': () => 'rows',
        'cache-e2e.render': (ctx) => {
          const { reportId } = ctx.input as { reportId: string };
          rendered.push(reportId);
          return { html: `<h1>${reportId}</h1>` };
        },
        'cache-e2e.deliver': (ctx) => ctx.deps,
      },
    });

    const first = await engine.client.submit(report, { reportId: 'q3' });
    expect(await engine.client.result(first.runId, { timeout: '20s' })).toEqual({
      deliver: { render: { html: '<h1>q3</h1>' } },
    });
    const second = await engine.client.submit(report, { reportId: 'q3' });
    expect(await engine.client.result(second.runId, { timeout: '20s' })).toEqual({
      deliver: { render: { html: '<h1>q3</h1>' } },
    });
    // The handler ran once; the second run's node completed from the cache, never claimed.
    expect(rendered).toEqual(['q3']);
    const cached = await stepRow(engine, second.runId, 'render');
    expect(cached).toMatchObject({ state: 'completed', cached: true, attempts: 0 });
    expect(cached.started_at).toBeNull();
    const events = (await eventRows(engine, second.runId)).filter((e) => e.node === 'render');
    expect(events.map((e) => [e.type, e.from_state, e.to_state, e.trigger])).toEqual([
      ['step_cached', 'pending', 'completed', 'cache_hit'],
    ]);
    const steps = await engine.client.listSteps(second.runId);
    expect(steps.find((s) => s.node === 'render')?.cached).toBe(true);

    // Another key runs the handler.
    const third = await engine.client.submit(report, { reportId: 'q4' });
    await engine.client.result(third.runId, { timeout: '20s' });
    expect(rendered).toEqual(['q3', 'q4']);
  });
});
