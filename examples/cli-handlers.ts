// A handler module for `cyclone worker --handlers`: `handlers`, an object of handlers by kind,
// and optionally `workflows`, the definitions the worker serves. `handlersFor` makes that object
// from handlers by node, typed from the definition: `ctx.deps.load` is the `load` node's output.
import { z } from 'zod';
import { typed, workflow } from '@cyclone/core';
import { handlersFor } from '@cyclone/worker';

interface Order {
  orderId: string;
  totalCents: number;
}

export const order = workflow('order', { input: z.object({ orderId: z.string() }) })
  .task('load', 'orders.load', { output: typed<Order>() })
  .task('charge', 'payments.charge', {
    dependsOn: ['load'],
    maxAttempts: 5,
    output: typed<{ chargeId: string; amountCents: number }>(),
  })
  .build();

export const workflows = [order]; // optional: definitions the worker serves (child runs)

export const handlers = handlersFor(order, {
  // A stand-in for a database read.
  load: async (ctx) => ({ orderId: ctx.input.orderId, totalCents: 4_200 }),
  charge: async (ctx) => {
    ctx.signal.throwIfAborted(); // a real call takes ctx.signal: cancellation and timeouts stop it
    const { orderId, totalCents } = ctx.deps.load;
    return { chargeId: `ch_${orderId}`, amountCents: totalCents };
  },
});
