import { describe, expect, it } from 'vitest';
import type { Client } from '@cyclone/client';
import { eventLabels, type RunStatus, type StepEvent, type StepStatus } from '@cyclone/core';
import { table } from '../src/terminal/output.js';
import { nodeDepths, runGraph } from '../src/views/run-graph.js';
import { progressLine, watchBlock, watchRun } from '../src/views/run-watch.js';
import { wrap } from '../src/terminal/terminal.js';

const t0 = new Date('2026-12-01T12:00:00.000Z');

function step(node: string, over: Partial<StepStatus> = {}): StepStatus {
  return {
    id: `id-${node}`,
    runId: 'run',
    node,
    nodeType: 'task',
    kind: `k.${node}`,
    state: 'pending',
    attempts: 0,
    maxAttempts: 3,
    reclaims: 0,
    error: null,
    errorKind: null,
    panicStack: null,
    timedOut: false,
    dependsOn: [],
    itemIndex: null,
    maxParallel: null,
    childRunId: null,
    scheduledAt: t0,
    leaseExpiresAt: null,
    createdAt: t0,
    startedAt: null,
    endedAt: null,
    waitSignals: null,
    waitN: null,
    waitGathered: 0,
    waitDeadlineAt: null,
    waitRemainingMs: null,
    ...over,
  };
}

function event(type: string, over: Partial<StepEvent> = {}): StepEvent {
  return {
    id: 1,
    at: t0,
    runId: 'run',
    stepId: 's1',
    node: 'a',
    type,
    from: null,
    to: null,
    trigger: null,
    errorKind: null,
    detail: null,
    ...over,
  };
}

describe('runGraph', () => {
  it('orders nodes by depth, then declaration, and counts a fan-out node’s items', () => {
    const steps = [
      step('d', { dependsOn: ['b', 'c'] }),
      step('a', {
        state: 'completed',
        attempts: 1,
        startedAt: t0,
        endedAt: new Date(t0.getTime() + 1500),
      }),
      step('b', { dependsOn: ['a'], nodeType: 'fan_out' }),
      step('c', { dependsOn: ['a'] }),
      step('b', { nodeType: 'item', itemIndex: 0, state: 'completed' }),
      step('b', { nodeType: 'item', itemIndex: 1, state: 'running' }),
    ];
    expect(Object.fromEntries(nodeDepths(steps.filter((s) => s.itemIndex === null)))).toEqual({
      a: 0,
      b: 1,
      c: 1,
      d: 2,
    });
    const lines = runGraph(steps, 100).split('\n');
    expect(lines.map((l) => l.split(/(?<=\S)\s{2,}/)[0])).toEqual([
      'NODE',
      'a',
      '└ b',
      '  · items 1/2 completed, 1 running',
      '└ c',
      '  └ d',
    ]);
    expect(lines[1]).toMatch(/^a\s+completed\s+1\/3\s+-\s+1s$/);
  });

  it('fits the terminal by cutting the dependency column', () => {
    const deps = Array.from({ length: 30 }, (_, i) => `upstream-${i}`);
    const steps = [...deps.map((d) => step(d)), step('join', { dependsOn: deps })];
    for (const line of runGraph(steps, 80).split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });
});

describe('table', () => {
  it('cuts only the columns it may, with an ellipsis', () => {
    const out = table(['id', 'text'], [['keep-this-id', 'a long free text that does not fit']], {
      width: 30,
      shrink: [1],
    });
    expect(out.split('\n')[1]).toBe('keep-this-id  a long free tex…');
  });
});

describe('watch view', () => {
  it('draws the progress bar in the width and one line per node', () => {
    expect(progressLine(1, 4, 60)).toBe(`[${'#'.repeat(8)}${'-'.repeat(22)}] 1/4 steps completed`);
    expect(progressLine(1, 4, 30)).toHaveLength(30);
    const run = { id: 'r1', workflow: 'wf', state: 'running' } as RunStatus;
    expect(watchBlock(run, [step('a', { state: 'completed' }), step('bb')], 60)).toEqual([
      'run r1  wf  running',
      '[###############---------------] 1/2 steps completed',
      '  a     completed',
      '  bb    pending',
    ]);
  });
});

describe('eventLabels', () => {
  it('labels a scheduled retry, a later attempt, a late start, a reclaim and a lapse', () => {
    const ready = event('step_ready', { to: 'available', at: t0 });
    const late = event('step_started', {
      at: new Date(t0.getTime() + 20_000),
      detail: { attempt: 1 },
    });
    const retry = event('step_retry_scheduled', {
      to: 'available',
      at: new Date(t0.getTime() + 21_000),
      detail: { attempt: 1, delayMs: 30_000 },
    });
    const again = event('step_started', {
      at: new Date(t0.getTime() + 52_000),
      detail: { attempt: 2 },
    });
    expect(
      eventLabels([
        ready,
        late,
        retry,
        again,
        event('step_reclaimed', { to: 'available' }),
        event('wait_lapsed', { stepId: 's2' }),
        event('run_submitted', { stepId: null }),
      ]),
    ).toEqual([undefined, 'Late', 'AwaitingRetry', 'Retrying', 'Crashed', 'TimedOut', undefined]);
  });
});

describe('wrap', () => {
  it('breaks at spaces within the width', () => {
    expect(wrap('one two three four', 9)).toEqual(['one two', 'three', 'four']);
  });
});

describe('watchRun on a terminal', () => {
  it('redraws the view in place and stops when the run ends', async () => {
    const states = ['running', 'completed'] as const;
    let look = 0;
    const fake = {
      getRun: () => Promise.resolve({ id: 'r1', workflow: 'wf', state: states[Math.min(look, 1)] }),
      events: () => {
        look += 1;
        return Promise.resolve([event('step_completed', { id: look })]);
      },
      listSteps: () => Promise.resolve([step('a', { state: look > 1 ? 'completed' : 'running' })]),
      store: { subscribe: () => Promise.reject(new Error('no notifications')) },
    };
    const lines: string[] = [];
    const output = { out: (l: string) => lines.push(l), err: () => undefined, isTTY: true };
    const run = await watchRun(fake as unknown as Client, 'r1', {
      output,
      json: false,
      width: 60,
      intervalMs: 10,
    });
    expect(run.state).toBe('completed');
    expect(lines[0]).toBe('run r1  wf  running');
    // The second view starts by moving up over the first one's three lines and clearing them.
    expect(lines[3]).toBe('\u001b[3F\u001b[Jrun r1  wf  completed');
    expect(lines.at(-1)).toBe('  a     completed');
  });
});
