import { describe, expect, it } from 'vitest';
import { OnDepFailure, permanent, workflow } from '@cyclone/core';
import { gate } from '../engine.js';
import { eventRows, runRow, stepReaches, stepRows, useTransitionEngine } from './helpers.js';

const engine = useTransitionEngine();

const fail = () => {
  throw permanent(new Error('upstream broke'));
};

function statesOf(steps: Record<string, { state: string }>): Record<string, string> {
  return Object.fromEntries(Object.entries(steps).map(([node, s]) => [node, s.state]));
}

describe('CancelBranch containment', () => {
  it('cancels the CancelBranch dependent of a discarded node, lets the independent node complete, and completes the run', async () => {
    const branch = workflow('contain-branch')
      .task('a', 'contain.a')
      .task('b', 'contain.b', { dependsOn: ['a'], onDepFailure: OnDepFailure.CancelBranch })
      .task('c', 'contain.c')
      .build();
    const cRelease = gate<string>();
    await engine.startWorker({
      handlers: {
        'contain.a': fail,
        'contain.b': () => 'never',
        'contain.c': () => cRelease.promise,
      },
      workflows: [branch],
    });
    const { runId } = await engine.client.submit(branch, null);

    // The discard is contained while c still runs: b is cancelled, the run keeps going.
    await stepReaches(engine, runId, 'b', 'cancelled');
    expect(statesOf(await stepRows(engine, runId))).toEqual({
      a: 'discarded',
      b: 'cancelled',
      c: 'running',
    });
    expect(await runRow(engine, runId)).toMatchObject({
      state: 'running',
      open_steps: 1,
      error_kind: null,
    });

    cRelease.open('c done');
    const run = await engine.client.wait(runId, { timeout: '10s' });
    expect(run.state).toBe('completed');
    const steps = await stepRows(engine, runId);
    expect(statesOf(steps)).toEqual({ a: 'discarded', b: 'cancelled', c: 'completed' });
    expect(steps.b!.attempts).toBe(0);
    expect(steps.b!.ended_at).toBeInstanceOf(Date);
    const row = await runRow(engine, runId);
    expect(row).toMatchObject({
      state: 'completed',
      open_steps: 0,
      failed_node: null,
      error_kind: null,
    });
    expect(row.ended_at).toBeInstanceOf(Date);

    const events = (await eventRows(engine, runId)).map((e) => [
      e.type,
      e.node,
      e.from_state,
      e.to_state,
    ]);
    expect(events).toContainEqual(['step_cancelled_cancel_branch', 'b', 'pending', 'cancelled']);
    expect(events.filter((e) => e[0] === 'step_cancelled_fail_fast')).toEqual([]);
    expect(events.at(-1)).toEqual(['run_completed', null, 'running', 'completed']);
    // The result holds the completed leaves.
    expect(await engine.client.result(runId)).toEqual({ c: 'c done' });
  });

  it('completes the run from the discard itself when the rest of the run had already finished', async () => {
    const branch = workflow('contain-last')
      .task('a', 'contain.last.a')
      .task('b', 'contain.last.b', { dependsOn: ['a'], onDepFailure: OnDepFailure.CancelBranch })
      .task('c', 'contain.last.c')
      .build();
    const aRelease = gate();
    await engine.startWorker({
      handlers: {
        'contain.last.a': async () => {
          await aRelease.promise;
          fail();
        },
        'contain.last.b': () => 'never',
        'contain.last.c': () => 'c',
      },
      workflows: [branch],
    });
    const { runId } = await engine.client.submit(branch, null);
    await stepReaches(engine, runId, 'c', 'completed');
    aRelease.open();
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect(statesOf(await stepRows(engine, runId))).toEqual({
      a: 'discarded',
      b: 'cancelled',
      c: 'completed',
    });
    const last = (await eventRows(engine, runId)).at(-1)!;
    expect([last.type, last.from_state, last.to_state]).toEqual([
      'run_completed',
      'running',
      'completed',
    ]);
  });

  it('fails the run when a FailRun node sits anywhere downstream of the discarded node', async () => {
    const chain = workflow('contain-failrun')
      .task('a', 'contain.chain.a')
      .task('b', 'contain.chain.b', { dependsOn: ['a'], onDepFailure: OnDepFailure.CancelBranch })
      .task('d', 'contain.chain.d', { dependsOn: ['b'] })
      .build();
    await engine.startWorker({
      handlers: { 'contain.chain.a': fail, 'contain.chain.b': () => 1, 'contain.chain.d': () => 2 },
      workflows: [chain],
    });
    const { runId } = await engine.client.submit(chain, null);
    const run = await engine.client.wait(runId, { timeout: '10s' });
    expect(run.state).toBe('failed');
    expect(statesOf(await stepRows(engine, runId))).toEqual({
      a: 'discarded',
      b: 'cancelled',
      d: 'cancelled',
    });
    expect(await runRow(engine, runId)).toMatchObject({
      state: 'failed',
      failed_node: 'a',
      error_kind: 'permanent',
      error: 'upstream broke',
      open_steps: 0,
    });
    const cancelled = (await eventRows(engine, runId))
      .filter((e) => e.type.startsWith('step_cancelled'))
      .map((e) => [e.type, e.node]);
    expect(cancelled).toEqual(
      expect.arrayContaining([
        ['step_cancelled_fail_fast', 'b'],
        ['step_cancelled_fail_fast', 'd'],
      ]),
    );
    expect(cancelled).toHaveLength(2);
  });

  it('fails the run when the discarded node is a leaf, even if every other node declares CancelBranch', async () => {
    const leaf = workflow('contain-leaf')
      .task('a', 'contain.leaf.a')
      .task('b', 'contain.leaf.b', { dependsOn: ['a'], onDepFailure: OnDepFailure.CancelBranch })
      .build();
    await engine.startWorker({
      handlers: { 'contain.leaf.a': () => 'ok', 'contain.leaf.b': fail },
      workflows: [leaf],
    });
    const { runId } = await engine.client.submit(leaf, null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    expect(statesOf(await stepRows(engine, runId))).toEqual({ a: 'completed', b: 'discarded' });
    expect(await runRow(engine, runId)).toMatchObject({
      state: 'failed',
      failed_node: 'b',
      error_kind: 'permanent',
      open_steps: 0,
    });
  });

  it('cancels a whole CancelBranch subtree and keeps the rest of the run going', async () => {
    // a -> b -> e, all CancelBranch below a; c -> f is independent and completes.
    const tree = workflow('contain-tree')
      .task('a', 'contain.tree.a')
      .task('b', 'contain.tree.b', { dependsOn: ['a'], onDepFailure: OnDepFailure.CancelBranch })
      .task('e', 'contain.tree.e', { dependsOn: ['b'], onDepFailure: OnDepFailure.CancelBranch })
      .task('c', 'contain.tree.c')
      .task('f', 'contain.tree.f', { dependsOn: ['c'] })
      .build();
    await engine.startWorker({
      handlers: {
        'contain.tree.a': fail,
        'contain.tree.b': () => 'b',
        'contain.tree.e': () => 'e',
        'contain.tree.c': () => 'c',
        'contain.tree.f': (ctx) => `${ctx.deps.c as string}f`,
      },
      workflows: [tree],
    });
    const { runId } = await engine.client.submit(tree, null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect(statesOf(await stepRows(engine, runId))).toEqual({
      a: 'discarded',
      b: 'cancelled',
      e: 'cancelled',
      c: 'completed',
      f: 'completed',
    });
    expect(await engine.client.result(runId)).toEqual({ f: 'cf' });
    expect((await runRow(engine, runId)).open_steps).toBe(0);
  });

  it('leaves a branch-cancelled node cancelled when its other dependency completes later', async () => {
    // b depends on a (discarded) and on c (still running at the discard); b declares CancelBranch.
    const shared = workflow('contain-shared')
      .task('a', 'contain.shared.a')
      .task('c', 'contain.shared.c')
      .task('b', 'contain.shared.b', {
        dependsOn: ['a', 'c'],
        onDepFailure: OnDepFailure.CancelBranch,
      })
      .build();
    const cRelease = gate<string>();
    let bCalls = 0;
    await engine.startWorker({
      handlers: {
        'contain.shared.a': fail,
        'contain.shared.c': () => cRelease.promise,
        'contain.shared.b': () => void bCalls++,
      },
      workflows: [shared],
    });
    const { runId } = await engine.client.submit(shared, null);
    await stepReaches(engine, runId, 'b', 'cancelled');
    cRelease.open('c');
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    const steps = await stepRows(engine, runId);
    expect(statesOf(steps)).toEqual({ a: 'discarded', c: 'completed', b: 'cancelled' });
    // c's completion did not promote the cancelled node.
    expect(steps.b!.deps_remaining).toBe(2);
    expect(bCalls).toBe(0);
    const types = (await eventRows(engine, runId)).map((e) => e.type);
    expect(types).not.toContain('step_ready');
  });
});
