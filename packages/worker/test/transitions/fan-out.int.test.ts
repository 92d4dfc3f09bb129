import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { eventually, gate } from '../engine.js';
import {
  eventRows,
  runRow,
  stepReaches,
  stepRow,
  untilAborted,
  useTransitionEngine,
} from './helpers.js';
import { concurrencyProbe, itemRows, itemStates } from './fan-out-helpers.js';

const engine = useTransitionEngine();

describe('fan-out nodes through a real worker', () => {
  it('expands the list into item tasks, available up to maxParallel and pending beyond, and completes with the outputs in item order', async () => {
    const held = gate();
    const def = workflow('fo-basic')
      .task('list', 'fo.list')
      .fanOut('pack', 'fo.pack', { from: 'list', maxParallel: 2 })
      .task('ship', 'fo.ship', { dependsOn: ['pack'] })
      .build();
    let shipSaw: unknown;
    const seen: [unknown, number | undefined, string][] = [];
    await engine.startWorker({
      concurrency: 10,
      handlers: {
        'fo.list': () => ['a', 'b', 'c', 'd', 'e'],
        'fo.pack': async (ctx) => {
          seen.push([ctx.item, ctx.index, ctx.node]);
          await held.promise;
          return `packed-${String(ctx.item)}`;
        },
        'fo.ship': (ctx) => {
          shipSaw = ctx.deps.pack;
          return 'shipped';
        },
      },
    });
    const { runId } = await engine.client.submit(def, null);
    await eventually(
      async () => (await itemRows(engine, runId, 'pack')).length === 5,
      'the items to be inserted',
    );
    await eventually(
      async () =>
        (await itemStates(engine, runId, 'pack')).filter((s) => s === 'running').length === 2,
      'two items to run',
    );
    expect(await itemStates(engine, runId, 'pack')).toEqual([
      'running',
      'running',
      'pending',
      'pending',
      'pending',
    ]);
    const items = await itemRows(engine, runId, 'pack');
    expect(items.map((i) => [i.item_index, i.item, i.node, i.node_type, i.kind])).toEqual([
      [0, 'a', 'pack', 'item', 'fo.pack'],
      [1, 'b', 'pack', 'item', 'fo.pack'],
      [2, 'c', 'pack', 'item', 'fo.pack'],
      [3, 'd', 'pack', 'item', 'fo.pack'],
      [4, 'e', 'pack', 'item', 'fo.pack'],
    ]);
    // The node stays pending while its items run; no worker ever claims it.
    expect(await stepRow(engine, runId, 'pack')).toMatchObject({ state: 'pending', attempts: 0 });
    held.open();
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    const node = await stepRow(engine, runId, 'pack');
    expect(node).toMatchObject({ state: 'completed', claim_token: null, started_at: null });
    expect(node.output).toEqual(['packed-a', 'packed-b', 'packed-c', 'packed-d', 'packed-e']);
    expect(shipSaw).toEqual(node.output);
    expect(seen.map(([item, index, n]) => [item, index, n]).sort()).toEqual([
      ['a', 0, 'pack'],
      ['b', 1, 'pack'],
      ['c', 2, 'pack'],
      ['d', 3, 'pack'],
      ['e', 4, 'pack'],
    ]);
    const events = await eventRows(engine, runId);
    const trail = (e: (typeof events)[number]) =>
      `${e.from_state ?? '-'}>${e.to_state}:${e.trigger}`;
    const itemEvents = events.filter((e) => e.node === 'pack' && e.step_id !== node.id);
    expect(itemEvents.filter((e) => e.trigger === 'fan_out_expand').map(trail)).toEqual([
      '->available:fan_out_expand',
      '->available:fan_out_expand',
      '->pending:fan_out_expand',
      '->pending:fan_out_expand',
      '->pending:fan_out_expand',
    ]);
    expect(itemEvents.filter((e) => e.trigger === 'fan_out_slot_freed')).toHaveLength(3);
    expect(events.filter((e) => e.step_id === node.id).map(trail)).toEqual([
      'pending>completed:fan_out_completed',
    ]);
    expect((await runRow(engine, runId)).open_steps).toBe(0);
    // The client lists the item tasks after the nodes, in item order, with their position.
    const listed = await engine.client.listSteps(runId);
    expect(listed.map((s) => [s.node, s.nodeType, s.itemIndex])).toEqual([
      ['list', 'task', null],
      ['pack', 'fan_out', null],
      ['ship', 'task', null],
      ['pack', 'item', 0],
      ['pack', 'item', 1],
      ['pack', 'item', 2],
      ['pack', 'item', 3],
      ['pack', 'item', 4],
    ]);
    expect(listed.find((s) => s.nodeType === 'fan_out')?.maxParallel).toBe(2);
  });

  it('never runs more items at once than maxParallel', async () => {
    const probe = concurrencyProbe(async (item) => {
      // A little work between start and end, so runs overlap when the limit lets them.
      await new Promise((resolve) => setImmediate(resolve));
      return item;
    });
    const list = Array.from({ length: 40 }, (_, i) => i);
    const def = workflow('fo-limit')
      .task('list', 'fo-limit.list')
      .fanOut('pack', 'fo-limit.pack', { from: 'list', maxParallel: 3 })
      .build();
    await engine.startWorker({
      concurrency: 10,
      handlers: { 'fo-limit.list': () => list, 'fo-limit.pack': probe.handler },
    });
    const { runId } = await engine.client.submit(def, null);
    expect((await engine.client.wait(runId, { timeout: '20s' })).state).toBe('completed');
    expect(probe.highest).toBeLessThanOrEqual(3);
    expect(probe.highest).toBeGreaterThan(0);
    expect((await stepRow(engine, runId, 'pack')).output).toEqual(list);
  });

  it('a fan-out that expands in a paused run inserts its items paused within the limit; resume releases them', async () => {
    const listHeld = gate();
    const def = workflow('fo-paused-expand')
      .task('list', 'fo-pe.list')
      .fanOut('pack', 'fo-pe.pack', { from: 'list', maxParallel: 2 })
      .build();
    await engine.startWorker({
      handlers: {
        'fo-pe.list': async () => {
          await listHeld.promise;
          return [1, 2, 3];
        },
        'fo-pe.pack': (ctx) => Promise.resolve((ctx.item as number) * 10),
      },
    });
    const { runId } = await engine.client.submit(def, null);
    await stepReaches(engine, runId, 'list', 'running');
    await engine.client.run(runId).pause();
    listHeld.open();
    await eventually(
      async () => (await itemRows(engine, runId, 'pack')).length === 3,
      'the expansion in the paused run',
    );
    expect(await itemStates(engine, runId, 'pack')).toEqual(['paused', 'paused', 'pending']);
    expect((await runRow(engine, runId)).state).toBe('paused');
    await engine.client.run(runId).resume();
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect((await stepRow(engine, runId, 'pack')).output).toEqual([10, 20, 30]);
    const events = await eventRows(engine, runId);
    const moves = events
      .filter((e) => e.node === 'pack' && e.trigger !== 'claim' && e.trigger !== 'complete')
      .map((e) => `${e.from_state ?? '-'}>${e.to_state}:${e.trigger}`);
    expect(moves).toEqual([
      '->paused:fan_out_expand',
      '->paused:fan_out_expand',
      '->pending:fan_out_expand',
      'paused>available:resume',
      'paused>available:resume',
      'pending>available:fan_out_slot_freed',
      'pending>completed:fan_out_completed',
    ]);
  });

  it('pause pauses available items, which keep their place in the limit; an item finishing in the pause releases nothing', async () => {
    const firstHeld = gate();
    const firstRunning = gate();
    const def = workflow('fo-pause')
      .task('list', 'fo-p.list')
      .fanOut('pack', 'fo-p.pack', { from: 'list', maxParallel: 2 })
      .build();
    await engine.startWorker({
      // One handler at a time and nothing claimed ahead: item 0 runs, item 1 waits available.
      concurrency: 1,
      prefetch: 0,
      handlers: {
        'fo-p.list': () => ['a', 'b', 'c', 'd'],
        'fo-p.pack': async (ctx) => {
          if (ctx.index === 0) {
            firstRunning.open();
            await firstHeld.promise;
          }
          return ctx.item;
        },
      },
    });
    const { runId } = await engine.client.submit(def, null);
    await firstRunning.promise;
    expect(await itemStates(engine, runId, 'pack')).toEqual([
      'running',
      'available',
      'pending',
      'pending',
    ]);
    await engine.client.run(runId).pause();
    expect(await itemStates(engine, runId, 'pack')).toEqual([
      'running',
      'paused',
      'pending',
      'pending',
    ]);
    firstHeld.open();
    await eventually(
      async () => (await itemStates(engine, runId, 'pack'))[0] === 'completed',
      'item 0 to complete during the pause',
    );
    // Its place is free, but the run is paused: nothing is released, and the paused item waits.
    await eventually(
      async () =>
        (await engine.query('SELECT 1 FROM cyclone_settlements WHERE run_id = $1', [runId]))
          .length === 0,
      'the completion to be settled',
    );
    expect(await itemStates(engine, runId, 'pack')).toEqual([
      'completed',
      'paused',
      'pending',
      'pending',
    ]);
    await engine.client.run(runId).resume();
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect((await stepRow(engine, runId, 'pack')).output).toEqual(['a', 'b', 'c', 'd']);
  });

  it('cancel during a fan-out cancels the node and every open item', async () => {
    const running = gate();
    const def = workflow('fo-cancel')
      .task('list', 'fo-c.list')
      .fanOut('pack', 'fo-c.pack', { from: 'list', maxParallel: 2 })
      .build();
    await engine.startWorker({
      handlers: {
        'fo-c.list': () => [1, 2, 3, 4],
        'fo-c.pack': (ctx) => {
          running.open();
          return untilAborted(ctx.signal);
        },
      },
    });
    const { runId } = await engine.client.submit(def, null);
    await running.promise;
    await engine.client.cancel(runId);
    expect((await runRow(engine, runId)).state).toBe('cancelled');
    expect((await stepRow(engine, runId, 'pack')).state).toBe('cancelled');
    expect(await itemStates(engine, runId, 'pack')).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    const triggers = (await eventRows(engine, runId))
      .filter((e) => e.to_state === 'cancelled' && e.step_id !== null)
      .map((e) => e.trigger);
    expect(new Set(triggers)).toEqual(new Set(['cancel']));
    expect((await runRow(engine, runId)).open_steps).toBe(0);
  });
});
