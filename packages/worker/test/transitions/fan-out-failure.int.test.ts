import { describe, expect, it } from 'vitest';
import { permanent, ValidationError, workflow, type WorkflowDefinition } from '@cyclone/core';
import { eventually, gate } from '../engine.js';
import {
  eventRows,
  runRow,
  stepReaches,
  stepRow,
  stepRows,
  tableCounts,
  untilAborted,
  useTransitionEngine,
} from './helpers.js';
import { itemRows, itemStates } from './fan-out-helpers.js';

const engine = useTransitionEngine();

/** `from>to:trigger` of every event of one step. */
async function trailOf(runId: string, stepId: string): Promise<string[]> {
  return (await eventRows(engine, runId))
    .filter((e) => e.step_id === stepId)
    .map((e) => `${e.from_state ?? '-'}>${e.to_state}:${e.trigger}`);
}

/** A run whose fan-out `pack` over `list` ends however the test's handlers make it. */
async function fanOutOf(
  name: string,
  list: unknown,
  options: { maxParallel?: number; maxItems?: number } = {},
  pack: (item: unknown, index: number, signal: AbortSignal) => Promise<unknown> = (item) =>
    Promise.resolve(item),
  concurrency = 4,
) {
  const def = workflow(name)
    .task('list', `${name}.list`)
    .fanOut('pack', `${name}.pack`, { from: 'list', ...options })
    .task('ship', `${name}.ship`, { dependsOn: ['pack'] })
    .build();
  await engine.startWorker({
    concurrency,
    // Nothing claimed ahead of a free slot: an item the worker cannot start yet stays available.
    prefetch: 0,
    handlers: {
      [`${name}.list`]: () => list,
      [`${name}.pack`]: (ctx) => pack(ctx.item, ctx.index!, ctx.signal),
      [`${name}.ship`]: () => 'shipped',
    },
  });
  const { runId } = await engine.client.submit(def, null);
  return runId;
}

describe('fan-out limits and input checks', () => {
  it('an empty list completes the node at once with [] (pending -> completed), no item inserted', async () => {
    const runId = await fanOutOf('fo-empty', []);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    const node = await stepRow(engine, runId, 'pack');
    expect(node).toMatchObject({ state: 'completed', output: [], attempts: 0 });
    expect(await itemRows(engine, runId, 'pack')).toEqual([]);
    expect(await trailOf(runId, node.id)).toEqual(['pending>completed:fan_out_completed']);
    expect((await stepRow(engine, runId, 'ship')).state).toBe('completed');
  });

  it('an upstream output that is not a list discards the node as permanent and fails the run; nothing expands', async () => {
    const runId = await fanOutOf('fo-not-list', { items: [1, 2] });
    const run = await engine.client.wait(runId, { timeout: '10s' });
    expect(run).toMatchObject({ state: 'failed', errorKind: 'permanent', failedNode: 'pack' });
    const node = await stepRow(engine, runId, 'pack');
    expect(node).toMatchObject({ state: 'discarded', error_kind: 'permanent' });
    expect(node.error).toContain('expected a list');
    expect(await itemRows(engine, runId, 'pack')).toEqual([]);
    expect(await trailOf(runId, node.id)).toEqual(['pending>discarded:fan_out_failed']);
    expect((await stepRow(engine, runId, 'ship')).state).toBe('cancelled');
  });

  it('more items than the node allows (maxItems) discards it as permanent; nothing expands', async () => {
    const runId = await fanOutOf('fo-too-many', [1, 2, 3, 4], { maxItems: 3 });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const node = await stepRow(engine, runId, 'pack');
    expect(node).toMatchObject({ state: 'discarded', error_kind: 'permanent' });
    expect(node.error).toContain('4 items, more than the limit of 3');
    expect(await itemRows(engine, runId, 'pack')).toEqual([]);
    expect(await trailOf(runId, node.id)).toEqual(['pending>discarded:fan_out_failed']);
  });

  it('a collected output over OutputBytes discards the node as permanent; the items keep their outputs', async () => {
    // Each item's output is under the limit; the four together are over it.
    const runId = await fanOutOf('fo-oversize', [0, 1, 2, 3], {}, () =>
      Promise.resolve('x'.repeat(300_000)),
    );
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const node = await stepRow(engine, runId, 'pack');
    expect(node).toMatchObject({ state: 'discarded', error_kind: 'permanent', output: null });
    expect(node.error).toContain('collected output');
    expect(await itemStates(engine, runId, 'pack')).toEqual([
      'completed',
      'completed',
      'completed',
      'completed',
    ]);
    expect(await trailOf(runId, node.id)).toEqual(['pending>discarded:fan_out_failed']);
  });
});

describe('bad fan-out options', () => {
  it('a maxParallel of 0, below 0 or not whole is a ValidationError naming the field, at build and at submit; nothing is written', async () => {
    const before = await tableCounts(engine);
    for (const maxParallel of [0, -3, 2.5]) {
      const build = () =>
        workflow('fo-bad')
          .task('list', 'fo-bad.list')
          .fanOut('pack', 'fo-bad.pack', { from: 'list', maxParallel })
          .build();
      expect(build).toThrow(ValidationError);
      expect(() => build()).toThrow(/nodes\.pack\.maxParallel/);
      // A definition edited after build (plain JSON) is checked again by submit.
      const good = workflow('fo-bad')
        .task('list', 'fo-bad.list')
        .fanOut('pack', 'fo-bad.pack', { from: 'list', maxParallel: 2 })
        .build();
      const edited = JSON.parse(JSON.stringify(good)) as { nodes: { maxParallel?: number }[] };
      edited.nodes[1]!.maxParallel = maxParallel;
      const error = await engine.client
        .submit(edited as unknown as WorkflowDefinition, null)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(String((error as Error).message)).toContain('maxParallel');
    }
    expect(await tableCounts(engine)).toEqual(before);
  });
});

describe('an item task discarded', () => {
  it('discards the node with the item error kind, cancels pending, available and running siblings, and fails the run', async () => {
    const secondRuns = gate();
    const aborted: number[] = [];
    const runId = await fanOutOf(
      'fo-item-fails',
      [0, 1, 2, 3, 4, 5],
      { maxParallel: 4 },
      async (_item, index, signal) => {
        if (index === 0) {
          await secondRuns.promise;
          throw permanent(new Error('item zero is broken'));
        }
        if (index === 1) secondRuns.open();
        signal.addEventListener('abort', () => aborted.push(index), { once: true });
        return untilAborted(signal);
      },
      // Two handlers at once: items 0 and 1 run, 2 and 3 wait available, 4 and 5 pending.
      2,
    );
    const run = await engine.client.wait(runId, { timeout: '10s' });
    expect(run).toMatchObject({ state: 'failed', errorKind: 'permanent', failedNode: 'pack' });
    const node = await stepRow(engine, runId, 'pack');
    expect(node).toMatchObject({ state: 'discarded', error_kind: 'permanent' });
    expect(node.error).toBe('item 0 was discarded: item zero is broken');
    const items = await itemRows(engine, runId, 'pack');
    expect(items.map((i) => i.state)).toEqual([
      'discarded',
      'cancelled',
      'cancelled',
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    const events = await eventRows(engine, runId);
    const cancelledFrom = events
      .filter((e) => e.trigger === 'fan_out_item_cancelled')
      .map((e) => e.from_state);
    // Item 1 was running; of 2 and 3 one may have been claimed into the free place, the other
    // was still available; 4 and 5 were pending.
    expect(cancelledFrom).toContain('running');
    expect(cancelledFrom).toContain('available');
    expect(cancelledFrom.filter((s) => s === 'pending')).toHaveLength(2);
    expect(await trailOf(runId, node.id)).toEqual(['pending>discarded:fan_out_failed']);
    expect((await stepRow(engine, runId, 'ship')).state).toBe('cancelled');
    // The running item's handler is told to stop.
    await eventually(() => aborted.includes(1), 'the running item to be aborted');
    expect((await runRow(engine, runId)).open_steps).toBe(0);
  });

  it('in a paused run, a running item discarded cancels the paused siblings and fails the run (paused -> failed)', async () => {
    const firstRunning = gate();
    const firstFails = gate();
    const runId = await fanOutOf(
      'fo-paused-fails',
      ['a', 'b', 'c'],
      { maxParallel: 2 },
      async (_item, index) => {
        if (index !== 0) return 'never';
        firstRunning.open();
        await firstFails.promise;
        throw permanent(new Error('a failed'));
      },
      // One handler at a time: item 0 runs, item 1 waits available and is paused.
      1,
    );
    await firstRunning.promise;
    await engine.client.run(runId).pause();
    expect(await itemStates(engine, runId, 'pack')).toEqual(['running', 'paused', 'pending']);
    firstFails.open();
    const run = await engine.client.wait(runId, { timeout: '10s' });
    expect(run).toMatchObject({ state: 'failed', errorKind: 'permanent', failedNode: 'pack' });
    expect(await itemStates(engine, runId, 'pack')).toEqual([
      'discarded',
      'cancelled',
      'cancelled',
    ]);
    const moves = (await eventRows(engine, runId))
      .filter((e) => e.trigger === 'fan_out_item_cancelled')
      .map((e) => `${e.from_state}>${e.to_state}`);
    expect(moves).toEqual(['paused>cancelled', 'pending>cancelled']);
    const runEvents = (await eventRows(engine, runId)).filter((e) => e.step_id === null);
    expect(runEvents.at(-1)).toMatchObject({ from_state: 'paused', to_state: 'failed' });
  });

  it('retry by node name reopens the node and its items together and the run completes', async () => {
    let broken = true;
    const runId = await fanOutOf(
      'fo-retry-node',
      ['a', 'b', 'c', 'd'],
      { maxParallel: 2 },
      (item) =>
        item === 'b' && broken
          ? Promise.reject(permanent(new Error('b is broken')))
          : Promise.resolve(`ok-${String(item)}`),
    );
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const before = await itemRows(engine, runId, 'pack');
    expect(before[1]!.state).toBe('discarded');
    broken = false;
    await engine.client.retry(runId, 'pack');
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    const node = await stepRow(engine, runId, 'pack');
    expect(node.output).toEqual(['ok-a', 'ok-b', 'ok-c', 'ok-d']);
    expect(await trailOf(runId, node.id)).toEqual([
      'pending>discarded:fan_out_failed',
      'discarded>pending:operator_retry',
      'pending>completed:fan_out_completed',
    ]);
    const retriedItem = await trailOf(runId, before[1]!.id);
    expect(retriedItem).toContain('discarded>available:operator_retry');
    // The items are the same rows: a retry never expands the list again.
    const after = await itemRows(engine, runId, 'pack');
    expect(after.map((i) => i.id)).toEqual(before.map((i) => i.id));
    expect((await stepRows(engine, runId)).ship!.state).toBe('completed');
  });

  it('retry by an item task id reopens its node; items beyond the limit wait in pending', async () => {
    let broken = true;
    const runId = await fanOutOf('fo-retry-item', [0, 1, 2, 3, 4, 5], { maxParallel: 1 }, (item) =>
      item === 0 && broken ? Promise.reject(permanent(new Error('zero'))) : Promise.resolve(item),
    );
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const [first] = await itemRows(engine, runId, 'pack');
    expect(first!.state).toBe('discarded');
    broken = false;
    await engine.client.retry(runId, first!.id);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect((await stepRow(engine, runId, 'pack')).output).toEqual([0, 1, 2, 3, 4, 5]);
    // The cancelled items came back to pending and were released one at a time.
    const events = await eventRows(engine, runId);
    const reopened = events.filter(
      (e) => e.trigger === 'operator_retry_reopen' && e.node === 'pack',
    );
    expect(reopened.map((e) => `${e.from_state}>${e.to_state}`)).toEqual(
      Array(5).fill('cancelled>pending'),
    );
  });

  it('another node failing the run cancels the fan-out and its items (fail-fast); its retry reopens them and the run completes', async () => {
    const itemsRunning = gate();
    let broken = true;
    const def = workflow('fo-fail-fast')
      .task('list', 'fo-ff.list')
      .fanOut('pack', 'fo-ff.pack', { from: 'list', maxParallel: 2 })
      .task('audit', 'fo-ff.audit', { dependsOn: ['list'] })
      .build();
    await engine.startWorker({
      concurrency: 4,
      prefetch: 0,
      handlers: {
        'fo-ff.list': () => [1, 2, 3],
        'fo-ff.pack': async (ctx) => {
          if (broken) {
            itemsRunning.open();
            return untilAborted(ctx.signal);
          }
          return ctx.item;
        },
        'fo-ff.audit': async () => {
          await itemsRunning.promise;
          if (broken) throw permanent(new Error('audit failed'));
          return 'audited';
        },
      },
    });
    const { runId } = await engine.client.submit(def, null);
    const run = await engine.client.wait(runId, { timeout: '10s' });
    expect(run).toMatchObject({ state: 'failed', failedNode: 'audit' });
    expect((await stepRow(engine, runId, 'pack')).state).toBe('cancelled');
    expect(await itemStates(engine, runId, 'pack')).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    broken = false;
    await engine.client.retry(runId, 'audit');
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect((await stepRow(engine, runId, 'pack')).output).toEqual([1, 2, 3]);
    const node = await stepRow(engine, runId, 'pack');
    expect(await trailOf(runId, node.id)).toEqual([
      'pending>cancelled:fail_fast',
      'cancelled>pending:operator_retry_reopen',
      'pending>completed:fan_out_completed',
    ]);
  });

  it('retryAll reopens a discarded fan-out node as well', async () => {
    let broken = true;
    const runId = await fanOutOf('fo-retry-all', [1, 2], {}, (item) =>
      broken ? Promise.reject(permanent(new Error('no'))) : Promise.resolve(item),
    );
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    broken = false;
    await engine.client.retryAll(runId);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect((await stepRow(engine, runId, 'pack')).output).toEqual([1, 2]);
    await stepReaches(engine, runId, 'ship', 'completed');
  });
});
