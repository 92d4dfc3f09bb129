import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { eventually, gate } from '../engine.js';
import { eventRows, runRow, stepReaches, stepRow, useTransitionEngine } from './helpers.js';
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
      async () => (await itemStates(engine, runId, 'pack')).filter((s) => s === 'running').length === 2,
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
    const trail = (e: (typeof events)[number]) => `${e.from_state ?? '-'}>${e.to_state}:${e.trigger}`;
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
  });
});
