import { workflow } from '@cyclone/core';
import { migrate } from '@cyclone/store-postgres';
import { Client } from '@cyclone/client';
import { Worker } from '@cyclone/worker';
import { Scheduler } from '@cyclone/scheduler';

// A definition is plain data: the client can submit it without importing any handler code.
export const invoice = workflow('invoice').task('pdf', 'invoices.render').build();

export const order = workflow('order')
  .task('load', 'orders.load')
  .task('charge', 'payments.charge', { dependsOn: ['load'], maxAttempts: 5, timeout: '30s' })
  .task('list-items', 'orders.items', { dependsOn: ['load'] })
  // One item task per element of list-items' output, at most two at a time.
  .fanOut('pack', 'stock.pack-item', { from: 'list-items', maxParallel: 2 })
  // Waits for a person (or another system): client.signal(runId, 'approved', payload).
  .waitSignal('approval', { signal: 'approved', dependsOn: ['charge'], maxWait: '2h' })
  // A run of the `invoice` workflow; the node's output is its `pdf` node's output.
  .child('invoice', { workflow: 'invoice', result: 'pdf', dependsOn: ['charge'] })
  .task('ship', 'shipping.ship', { dependsOn: ['charge', 'pack', 'approval', 'invoice'] })
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
async function packItem(item: unknown) {
  return { item, box: `box-${String(item)}` };
}
async function renderInvoice(input: unknown) {
  return { file: `${(input as { orderId: string }).orderId}.pdf` };
}
async function ship(charge: unknown, boxes: unknown, invoicePdf: unknown) {
  const { chargeId } = charge as { chargeId: string };
  return {
    trackingId: `trk_${chargeId}`,
    boxes: (boxes as unknown[]).length,
    invoice: (invoicePdf as { file: string }).file,
  };
}

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');

// Once per deploy: create or update Cyclone's tables (idempotent, safe from many processes).
await migrate({ connectionString });

// In the application: submit a run (one transaction: the run and all of its steps).
const client = new Client({ connectionString });
const { runId } = await client.submit(order, { orderId: 'o-42' });
// Signals may arrive before anything waits for them: they are kept for the run.
await client.signal(runId, 'approved', { by: 'ann' });

// In one or many worker processes: handlers are registered by kind.
const worker = new Worker({
  connectionString,
  workflows: [order, invoice], // registered by name: child nodes start runs of them
  concurrency: 10,
  handlers: {
    'orders.load': async (ctx) => loadOrder(ctx.input),
    'payments.charge': async (ctx) => chargeCard(ctx.deps['load'], { signal: ctx.signal }),
    'orders.items': async (ctx) => (ctx.deps['load'] as Order).items,
    'stock.pack-item': async (ctx) => packItem(ctx.item), // ctx.item, ctx.index: this element
    'invoices.render': async (ctx) => renderInvoice(ctx.input), // a child run gets the run input
    'shipping.ship': async (ctx) => ship(ctx.deps['charge'], ctx.deps['pack'], ctx.deps['invoice']),
  },
});
await worker.start();

// Somewhere (any number of replicas, one leads): reclaims the leases of dead workers, and more.
const scheduler = new Scheduler({ connectionString, workflows: [order, invoice] });
await scheduler.start();

console.log(await client.result(runId, { timeout: '1h' })); // { ship: { boxes: 2, ... } }

// Shut down: finish the steps in flight, stop scanning, close the connection pools.
await worker.stop({ timeout: '10s' });
await scheduler.stop();
await client.close();
