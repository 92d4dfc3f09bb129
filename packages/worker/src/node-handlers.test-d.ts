import { describe, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { typed, workflow } from '@cyclone/core';
import { handlersFor } from './node-handlers.js';
import { Worker } from './worker.js';

const invoice = workflow('invoice', { input: z.object({ orderId: z.string() }) })
  .task('pdf', 'invoices.render', { output: typed<{ file: string }>() })
  .build();

const order = workflow('order', { input: z.object({ orderId: z.string() }) })
  .task('load', 'orders.load', { output: typed<{ items: string[]; total: number }>() })
  .task('list', 'orders.list', { dependsOn: ['load'], output: typed<string[]>() })
  .fanOut('pack', 'orders.pack-item', { from: 'list', output: typed<{ box: number }>() })
  .child('invoice', { workflow: invoice, result: 'pdf', dependsOn: ['pack'] })
  .task('ship', 'shipping.ship', { dependsOn: ['pack', 'invoice'] })
  .build();

describe('handlersFor', () => {
  test('types ctx.input, ctx.deps and ctx.item from the definition', () => {
    handlersFor(order, {
      load: (ctx) => {
        expectTypeOf(ctx.input).toEqualTypeOf<{ orderId: string }>();
        expectTypeOf(ctx.deps).toEqualTypeOf<{ readonly [N in never]: unknown }>();
        return { items: [ctx.input.orderId], total: 1 };
      },
      list: (ctx) => {
        expectTypeOf(ctx.deps.load.total).toEqualTypeOf<number>();
        // @ts-expect-error pack is not a dependency of list
        void ctx.deps.pack;
        // @ts-expect-error a dependency read as the wrong type
        const total: string = ctx.deps.load.total;
        void total;
        return ctx.deps.load.items;
      },
      pack: (ctx) => {
        expectTypeOf(ctx.item).toEqualTypeOf<string>();
        expectTypeOf(ctx.index).toEqualTypeOf<number>();
        return { box: ctx.item.length };
      },
      ship: (ctx) => {
        expectTypeOf(ctx.deps.invoice).toEqualTypeOf<{ file: string }>();
        expectTypeOf(ctx.deps.pack).toEqualTypeOf<{ box: number }[]>();
        return ctx.deps.invoice.file;
      },
    });
  });

  test("checks each handler's return value against its node's output", () => {
    handlersFor(order, {
      // @ts-expect-error total must be a number
      load: () => ({ items: [], total: 'many' }),
      // @ts-expect-error an item task returns the item output, not the list
      pack: () => [{ box: 1 }],
    });
  });

  test('refuses a node that is not a task or fan-out of the definition', () => {
    handlersFor(order, {
      // @ts-expect-error no node named lod
      lod: () => ({ items: [], total: 0 }),
    });
    handlersFor(order, {
      // @ts-expect-error invoice is a child node: no handler runs it
      invoice: () => ({ file: 'x' }),
    });
  });

  test('leaves an untyped definition unknown, with only declared dependencies', () => {
    const plain = workflow('plain')
      .task('a', 'k')
      .task('b', 'k', { dependsOn: ['a'] })
      .build();
    handlersFor(plain, {
      b: (ctx) => {
        expectTypeOf(ctx.input).toBeUnknown();
        expectTypeOf(ctx.deps.a).toBeUnknown();
        // @ts-expect-error c is not a dependency of b
        void ctx.deps.c;
        return null;
      },
    });
  });

  test('fits the worker, beside handlers by kind that compile as before', () => {
    new Worker({
      connectionString: 'postgres://localhost/db',
      workflows: [order],
      handlers: [
        handlersFor(order, { load: () => ({ items: [], total: 0 }) }),
        { 'emails.send': (ctx) => ({ attempt: ctx.attempt }) },
      ],
    });
    new Worker({
      connectionString: 'postgres://localhost/db',
      handlers: { 'orders.load': (ctx) => ({ id: (ctx.input as { orderId: string }).orderId }) },
    });
  });
});
