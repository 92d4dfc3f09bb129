import { workflow } from '@cyclone/core';
import { migrate } from '@cyclone/store-postgres';
import { Client } from '@cyclone/client';
import { Worker } from '@cyclone/worker';
import { Scheduler } from '@cyclone/scheduler';

// A definition is plain data: the client can submit it without importing any handler code.
export const order = workflow('order')
  .task('load', 'orders.load')
  .task('charge', 'payments.charge', { dependsOn: ['load'], maxAttempts: 5, timeout: '30s' })
  .task('reserve', 'stock.reserve', { dependsOn: ['load'] })
  .task('ship', 'shipping.ship', { dependsOn: ['charge', 'reserve'] })
  .build();

// Your domain code. Stand-ins here, returning what the real services would.
interface Order {
  orderId: string;
  items: string[];
  totalCents: number;
}
async function loadOrder(input: unknown): Promise<Order> {
  const { orderId } = input as { orderId: string };
  return { orderId, items: ['kettle', 'mug'], totalCents: 4_200 };
}
async function chargeCard(order: unknown, { signal }: { signal: AbortSignal }) {
  signal.throwIfAborted(); // a real call takes the signal: cancellation and timeouts stop it
  const { orderId, totalCents } = order as Order;
  return { chargeId: `ch_${orderId}`, amountCents: totalCents };
}
async function reserveStock(order: unknown) {
  return { reserved: (order as Order).items.length };
}
async function ship(charge: unknown, reservation: unknown) {
  const { chargeId } = charge as { chargeId: string };
  return { trackingId: `trk_${chargeId}`, ...(reservation as { reserved: number }) };
}

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');

// Once per deploy: create or update Cyclone's tables (idempotent, safe from many processes).
await migrate({ connectionString });

// In the application: submit a run (one transaction: the run and all of its steps).
const client = new Client({ connectionString });
const { runId } = await client.submit(order, { orderId: 'o-42' });

// In one or many worker processes: handlers are registered by kind.
const worker = new Worker({
  connectionString,
  workflows: [order],
  concurrency: 10,
  handlers: {
    'orders.load': async (ctx) => loadOrder(ctx.input),
    'payments.charge': async (ctx) => chargeCard(ctx.deps['load'], { signal: ctx.signal }),
    'stock.reserve': async (ctx) => reserveStock(ctx.deps['load']),
    'shipping.ship': async (ctx) => ship(ctx.deps['charge'], ctx.deps['reserve']),
  },
});
await worker.start();

// Somewhere (any number of replicas, one leads): reclaims the leases of dead workers, and more.
const scheduler = new Scheduler({ connectionString, workflows: [order] });
await scheduler.start();

console.log(await client.result(runId, { timeout: '1h' })); // { ship: { trackingId: ... } }

// Shut down: finish the steps in flight, stop scanning, close the connection pools.
await worker.stop({ timeout: '10s' });
await scheduler.stop();
await client.close();
