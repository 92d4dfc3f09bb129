import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { typed, workflow } from '@cyclone/core';
import { handlersFor } from '../src/index.js';
import { eventually, useEngine } from './engine.js';

const engine = useEngine();

const order = workflow('typed-order', { input: z.object({ orderId: z.string() }) })
  .task('load', 'typed.load', { output: z.array(z.object({ sku: z.string() })) })
  .task('count', 'typed.count', { dependsOn: ['load'], output: z.number() })
  .fanOut('pack', 'typed.pack', { from: 'load', output: typed<string>() })
  .task('ship', 'typed.ship', { dependsOn: ['count', 'pack'], output: z.string() })
  .build();

describe('handlers registered against a definition', () => {
  it('run the workflow, each handler seeing its input, dependencies and item', async () => {
    await engine.startWorker({
      workflows: [order],
      handlers: handlersFor(order, {
        load: (ctx) => [{ sku: `${ctx.input.orderId}-a` }, { sku: `${ctx.input.orderId}-b` }],
        count: (ctx) => ctx.deps.load.length,
        pack: (ctx) => `box:${ctx.item.sku}:${ctx.index}`,
        ship: (ctx) => `${ctx.deps.count} items in ${ctx.deps.pack.join(', ')}`,
      }),
    });
    const { runId } = await engine.client.submit(order, { orderId: 'o1' });
    expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({
      ship: '2 items in box:o1-a:0, box:o1-b:1',
    });
  });

  it('dispatch by node when nodes of one workflow, or of several, share a kind', async () => {
    const twice = workflow('shared-kind')
      .task('a', 'shared.k')
      .task('b', 'shared.k', { dependsOn: ['a'] })
      .build();
    const other = workflow('shared-kind-2').task('c', 'shared.k').build();
    await engine.startWorker({
      workflows: [twice, other],
      handlers: [
        handlersFor(twice, { a: () => 'from a', b: (ctx) => `b after ${String(ctx.deps.a)}` }),
        handlersFor(other, { c: () => 'from c' }),
        { 'shared.k': (ctx) => `job ${String(ctx.input)}` },
      ],
    });
    const first = await engine.client.submit(twice, {});
    const second = await engine.client.submit(other, {});
    const job = await engine.client.enqueue('shared.k', 7);
    expect(await engine.client.result(first.runId, { timeout: '10s' })).toEqual({
      b: 'b after from a',
    });
    expect(await engine.client.result(second.runId, { timeout: '10s' })).toEqual({ c: 'from c' });
    expect(await engine.client.result(job.runId, { timeout: '10s' })).toEqual({
      'shared.k': 'job 7',
    });
  });

  it('refuse a key that is not a task or fan-out node of the definition', () => {
    expect(() =>
      handlersFor(order, {
        // @ts-expect-error lod is not a node of the workflow (a typo of load)
        lod: () => [],
      }),
    ).toThrow(
      /handlers of workflow "typed-order": lod: expected the name of a task or fan-out node/,
    );
  });
});

describe("an output that breaks its node's schema", () => {
  it('discards the step as permanent with the issues, and promotes no dependent', async () => {
    let shipped = 0;
    await engine.startWorker({
      workflows: [order],
      handlers: handlersFor(order, {
        load: () => [{ sku: 'a' }],
        // Wrong on purpose: the schema says a number, the handler gives text at run time.
        count: () => 'one' as unknown as number,
        pack: () => 'box',
        ship: () => {
          shipped++;
          return 'shipped';
        },
      }),
    });
    const { runId } = await engine.client.submit(order, { orderId: 'o2' });
    const run = await engine.client.wait(runId, { timeout: '10s' });
    expect(run.state).toBe('failed');
    const steps = await engine.client.listSteps(runId);
    const count = steps.find((s) => s.node === 'count')!;
    expect(count).toMatchObject({ state: 'discarded', errorKind: 'permanent', attempts: 1 });
    expect(count.maxAttempts).toBeGreaterThan(1);
    expect(count.error).toContain('invalid output of node "count"');
    expect(count.error).toMatch(/\(root\): .*expected number/i);
    const ship = steps.find((s) => s.node === 'ship')!;
    expect(['pending', 'cancelled']).toContain(ship.state);
    expect(shipped).toBe(0);
    const events = await engine.client.events(runId);
    expect(events.filter((e) => e.node === 'ship' && e.to === 'available')).toEqual([]);
  });

  it('is checked for item tasks, and with valibot as with zod', async () => {
    const items = workflow('typed-items')
      .task('list', 'items.list')
      .fanOut('each', 'items.each', { from: 'list', output: v.object({ ok: v.literal(true) }) })
      .build();
    await engine.startWorker({
      workflows: [items],
      handlers: {
        'items.list': () => [1, 2],
        'items.each': (ctx) => ({ ok: ctx.item === 1 }),
      },
    });
    const { runId } = await engine.client.submit(items, {});
    const bad = await eventually(async () => {
      const steps = await engine.client.listSteps(runId);
      const item = steps.find((s) => s.node === 'each' && s.itemIndex === 1);
      expect(item?.state).toBe('discarded');
      return item;
    }, 'item 1 discarded');
    expect(bad).toMatchObject({ errorKind: 'permanent', attempts: 1 });
    expect(bad.error).toContain('invalid output of node "each" item 1: ok: ');
  });
});
