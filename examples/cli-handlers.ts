// A handler module for `cyclone worker --handlers`: the handlers by kind and, optionally, the
// workflows the worker serves. `deps` is keyed by node name: the `load` node's output.
import { workflow } from '@cyclone/core';
import type { Handler } from '@cyclone/worker';

export const order = workflow('order')
  .task('load', 'orders.load')
  .task('charge', 'payments.charge', { dependsOn: ['load'], maxAttempts: 5 })
  .build();

export const workflows = [order]; // optional: definitions the worker serves (child runs)

interface Order {
  orderId: string;
  totalCents: number;
}

export const handlers: Record<string, Handler> = {
  'orders.load': async (ctx) => {
    const { orderId } = ctx.input as { orderId: string };
    return { orderId, totalCents: 4_200 } satisfies Order; // a stand-in for a database read
  },
  'payments.charge': async (ctx) => {
    ctx.signal.throwIfAborted(); // a real call takes ctx.signal: cancellation and timeouts stop it
    const { orderId, totalCents } = ctx.deps['load'] as Order;
    return { chargeId: `ch_${orderId}`, amountCents: totalCents };
  },
};
