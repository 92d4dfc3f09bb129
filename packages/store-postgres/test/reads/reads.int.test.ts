import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { runOfDefinition, runOfJob } from '../../src/tables/runs/new-runs.js';
import { claimOne, useStore } from '../fixture.js';

const fx = useStore();

describe('run reads', () => {
  it('reads one run, several runs, and leaves unknown ids out', async () => {
    const a = await fx.job('read.a');
    const b = await fx.job('read.b');
    expect(await fx.store.getRun(a.runId)).toMatchObject({
      id: a.runId,
      workflow: 'read.a',
      state: 'running',
    });
    expect(await fx.store.getRun('00000000-0000-4000-8000-000000000000')).toBeUndefined();
    const many = await fx.store.getRuns([a.runId, b.runId, '00000000-0000-4000-8000-000000000000']);
    expect(many.map((r) => r.id).sort()).toEqual([a.runId, b.runId].sort());
  });

  it('pages runs newest first by cursor, filtered by workflow', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await fx.job('read.page')).runId);
    const first = await fx.store.listRuns({ workflow: 'read.page', limit: 2 });
    expect(first.runs.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    const second = await fx.store.listRuns({
      workflow: 'read.page',
      limit: 2,
      cursor: first.nextCursor!,
    });
    expect(second.runs.map((r) => r.id)).toEqual([ids[0]]);
    expect(second.nextCursor).toBeUndefined();
  });

  it('refuses a cursor it did not make with a ValidationError naming the cursor', async () => {
    await expect(fx.store.listRuns({ cursor: 'not-a-cursor' })).rejects.toMatchObject({
      code: 'VALIDATION',
      issues: [expect.objectContaining({ path: 'cursor' })],
    });
  });
});

describe('step and event reads', () => {
  it('lists steps, a node output, the leaf outputs and the events with their triggers', async () => {
    const def = workflow('read-steps')
      .task('a', 'rs.a')
      .task('b', 'rs.b', { dependsOn: ['a'] })
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    for (const kind of ['rs.a', 'rs.b']) {
      const claimed = await claimOne(fx, kind);
      await fx.store.complete([
        { stepId: claimed.id, claimToken: claimed.claimToken, outputJson: `"${kind}"` },
      ]);
    }
    const steps = await fx.store.listSteps(run.id);
    expect(steps.map((s) => [s.node, s.state, s.output])).toEqual([
      ['a', 'completed', 'rs.a'],
      ['b', 'completed', 'rs.b'],
    ]);
    expect(await fx.store.nodeOutput(run.id, 'a')).toEqual({ state: 'completed', output: 'rs.a' });
    expect(await fx.store.nodeOutput(run.id, 'nope')).toBeUndefined();
    expect(await fx.store.leafOutputs(run.id)).toEqual([{ node: 'b', output: 'rs.b' }]);
    const events = await fx.store.listEvents(run.id);
    expect(events.map((e) => [e.type, e.from, e.to, e.trigger])).toEqual(
      (await fx.events(run.id)).map(([type, from, to, trigger]) => [type, from, to, trigger]),
    );
    expect(events.map((e) => e.trigger)).toEqual([
      'submit',
      'claim',
      'complete',
      'promote',
      'claim',
      'complete',
      'complete',
    ]);
    const later = await fx.store.listEvents(run.id, events[2]!.id);
    expect(later.map((e) => e.id)).toEqual(events.slice(3).map((e) => e.id));
  });
});

describe('node facts and child runs', () => {
  it('lists the child runs of a parent, and reads node facts by name, item form or step id', async () => {
    const parent = await fx.job('read.parent');
    const child = runOfJob('read.child', 'null', { parentRunId: parent.runId });
    await fx.submit(child);
    const page = await fx.store.listRuns({ parentRunId: parent.runId });
    expect(page.runs.map((r) => [r.id, r.parentRunId])).toEqual([[child.id, parent.runId]]);

    await fx.store.registerWorker('read-w', ['read.parent']);
    const facts = await fx.store.nodeFacts(parent.runId, { node: 'read.parent' }, 30_000);
    expect(facts).toMatchObject({
      run: { id: parent.runId, state: 'running', pausedAt: null },
      step: { id: parent.stepId, state: 'available', itemIndex: null, attempts: 0 },
      upstream: [],
      fanOut: null,
      child: null,
      workers: { live: 1, serving: ['read-w'] },
    });
    expect(await fx.store.nodeFacts(parent.runId, { stepId: parent.stepId }, 30_000)).toMatchObject(
      { step: { node: 'read.parent' } },
    );
    expect(
      await fx.store.nodeFacts(parent.runId, { node: 'read.parent', itemIndex: 0 }, 30_000),
    ).toBe('node');
    expect(
      await fx.store.nodeFacts('00000000-0000-4000-8000-000000000000', { node: 'x' }, 30_000),
    ).toBe('run');
  });
});
