import { permanent, workflow } from '@cyclone/core';
import type { Handler } from '@cyclone/worker';

/**
 * The workflow `cyclone dev` runs: load an order, then charge the card and reserve stock side by
 * side, then ship. The card charge fails on its first attempt (a gateway timeout) and succeeds on
 * the retry, so the run shows a retry with backoff.
 */
export const sampleWorkflow = workflow('dev.order')
  .task('load-order', 'dev.load-order')
  .task('charge-card', 'dev.charge-card', {
    dependsOn: ['load-order'],
    maxAttempts: 3,
    backoff: { initial: '750ms', jitter: 0 },
  })
  .task('reserve-stock', 'dev.reserve-stock', { dependsOn: ['load-order'] })
  .task('ship', 'dev.ship', { dependsOn: ['charge-card', 'reserve-stock'] })
  .build();

interface Order {
  readonly orderId: number;
  readonly items: readonly { sku: string; quantity: number; price: number }[];
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    });
  });

/** The handlers of {@link sampleWorkflow}. */
export const sampleHandlers: Record<string, Handler> = {
  'dev.load-order': async (ctx) => {
    await pause(300, ctx.signal);
    const input = ctx.input as { orderId?: number };
    const order: Order = {
      orderId: input.orderId ?? 1,
      items: [
        { sku: 'kite-red', quantity: 1, price: 4900 },
        { sku: 'line-30m', quantity: 2, price: 1200 },
      ],
    };
    return order;
  },
  'dev.charge-card': async (ctx) => {
    await pause(400, ctx.signal);
    if (ctx.attempt === 1) throw new Error('payment gateway timed out');
    const order = ctx.deps['load-order'] as Order;
    const amount = order.items.reduce((sum, i) => sum + i.quantity * i.price, 0);
    if (amount <= 0) throw permanent(new Error('nothing to charge'));
    return { chargeId: `ch_${order.orderId}`, amount };
  },
  'dev.reserve-stock': async (ctx) => {
    await pause(500, ctx.signal);
    const order = ctx.deps['load-order'] as Order;
    return { reserved: order.items.map((i) => i.sku) };
  },
  'dev.ship': async (ctx) => {
    await pause(300, ctx.signal);
    const charge = ctx.deps['charge-card'] as { chargeId: string };
    return { trackingNumber: `TRK-${charge.chargeId.slice(3)}-0001` };
  },
};
