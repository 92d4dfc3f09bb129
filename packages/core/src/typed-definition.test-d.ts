import * as v from 'valibot';
import { describe, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { typed } from './standard-schema.js';
import { workflow } from './workflow-builder.js';
import {
  type DepsOf,
  type HandlerOutputOf,
  type InputOf,
  type ItemOf,
  type OutputOf,
  type ResultOf,
  type SubmitInputOf,
} from './workflow-types.js';

const invoice = workflow('invoice', { input: z.object({ orderId: z.string() }) })
  .task('pdf', 'invoices.render', { output: z.object({ file: z.string() }) })
  .build();

const order = workflow('order', {
  input: z.object({ orderId: z.string(), rush: z.boolean().default(false) }),
})
  .task('load', 'orders.load', { output: z.array(z.object({ sku: z.string() })) })
  .task('charge', 'payments.charge', {
    dependsOn: ['load'],
    output: typed<{ chargeId: string }>(),
  })
  .fanOut('pack', 'orders.pack-item', { from: 'load', output: typed<{ box: number }>() })
  .waitSignal('approval', { signal: 'approved', dependsOn: ['charge'] })
  .child('invoice', { workflow: invoice, result: 'pdf', dependsOn: ['pack'] })
  .task('ship', 'shipping.ship', { dependsOn: ['approval', 'invoice'] })
  .build();

type Order = typeof order;
expectTypeOf(order.name).toBeString();

describe('a typed definition', () => {
  test("carries the input schema's output for handlers and its input for submit", () => {
    expectTypeOf<InputOf<Order>>().toEqualTypeOf<{ orderId: string; rush: boolean }>();
    expectTypeOf<SubmitInputOf<Order>>().toEqualTypeOf<{ orderId: string; rush?: boolean }>();
  });

  test('types each dependency by its output, and only declared dependencies exist', () => {
    expectTypeOf<DepsOf<Order, 'charge'>>().toEqualTypeOf<{
      readonly load: { sku: string }[];
    }>();
    expectTypeOf<DepsOf<Order, 'ship'>['invoice']>().toEqualTypeOf<{ file: string }>();
    expectTypeOf<DepsOf<Order, 'ship'>['approval']['timedOut']>().toEqualTypeOf<boolean>();
    // @ts-expect-error load is not a dependency of ship
    expectTypeOf<DepsOf<Order, 'ship'>['load']>().toBeUnknown();
  });

  test("types a fan-out's item as an element of its source's output, and its output as the list", () => {
    expectTypeOf<ItemOf<Order, 'pack'>>().toEqualTypeOf<{ sku: string }>();
    expectTypeOf<HandlerOutputOf<Order, 'pack'>>().toEqualTypeOf<{ box: number }>();
    expectTypeOf<OutputOf<Order, 'pack'>>().toEqualTypeOf<{ box: number }[]>();
  });

  test("types a child node's output as the child's result node output", () => {
    expectTypeOf<OutputOf<Order, 'invoice'>>().toEqualTypeOf<{ file: string }>();
  });

  test('gives the leaf outputs as the result', () => {
    expectTypeOf<ResultOf<Order>>().toEqualTypeOf<{ readonly ship: unknown }>();
    expectTypeOf<ResultOf<typeof invoice>>().toEqualTypeOf<{ readonly pdf: { file: string } }>();
  });

  test('works with valibot as with zod', () => {
    const refund = workflow('refund', { input: v.object({ amount: v.number() }) })
      .task('pay', 'refunds.pay', { output: v.object({ ok: v.boolean() }) })
      .build();
    expectTypeOf(refund.name).toBeString();
    expectTypeOf<InputOf<typeof refund>>().toEqualTypeOf<{ amount: number }>();
    expectTypeOf<ResultOf<typeof refund>>().toEqualTypeOf<{ readonly pay: { ok: boolean } }>();
  });

  test('refuses a child whose input type does not accept the parent input', () => {
    const other = workflow('other', { input: z.object({ userId: z.number() }) })
      .task('a', 'k')
      .build();
    workflow('p', { input: z.object({ orderId: z.string() }) })
      // @ts-expect-error the child's input needs userId
      .child('c', { workflow: other });
  });
});

describe('an untyped definition', () => {
  const plain = workflow('plain')
    .task('a', 'k')
    .task('b', 'k', { dependsOn: ['a'] })
    .build();

  test('has unknown input and outputs, and a result by any node name', () => {
    expectTypeOf(plain.nodes).toExtend<readonly unknown[]>();
    expectTypeOf<InputOf<typeof plain>>().toBeUnknown();
    expectTypeOf<SubmitInputOf<typeof plain>>().toBeUnknown();
    expectTypeOf<DepsOf<typeof plain, 'b'>>().toEqualTypeOf<{ readonly a: unknown }>();
    expectTypeOf<ResultOf<typeof plain>>().toEqualTypeOf<Record<string, unknown>>();
  });
});
