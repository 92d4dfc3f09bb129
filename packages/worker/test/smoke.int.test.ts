import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { useEngine } from './engine.js';

const engine = useEngine();

describe('the engine end to end', () => {
  it('runs a standalone job and returns its output as the run result', async () => {
    await engine.startWorker({ handlers: { 'math.double': (ctx) => (ctx.input as number) * 2 } });
    const { runId } = await engine.client.enqueue('math.double', 21);
    const run = await engine.client.wait(runId, { timeout: '10s' });
    expect(run.state).toBe('completed');
    expect(await engine.client.result(runId)).toEqual({ 'math.double': 42 });
  });

  it('runs a chain, passing each output downstream, and retries a failed attempt', async () => {
    let failures = 0;
    const chain = workflow('chain')
      .task('a', 'chain.a')
      .task('b', 'chain.b', { dependsOn: ['a'], backoff: { initial: '10ms', jitter: 0 } })
      .task('c', 'chain.c', { dependsOn: ['b'] })
      .build();
    await engine.startWorker({
      handlers: {
        'chain.a': () => 1,
        'chain.b': (ctx) => {
          if (failures++ === 0) throw new Error('flaky');
          return (ctx.deps.a as number) + 1;
        },
        'chain.c': (ctx) => (ctx.deps.b as number) + 1,
      },
      workflows: [chain],
    });
    const { runId } = await engine.client.submit(chain, {});
    expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({ c: 3 });
    const steps = await engine.client.listSteps(runId);
    expect(steps.map((s) => [s.node, s.state, s.attempts])).toEqual([
      ['a', 'completed', 1],
      ['b', 'completed', 2],
      ['c', 'completed', 1],
    ]);
  });
});
