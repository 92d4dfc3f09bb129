import { z } from 'zod';
import { typed, workflow } from '@cyclone/core';
import { migrate } from '@cyclone/store-postgres';
import { Client } from '@cyclone/client';
import { handlersFor, Worker } from '@cyclone/worker';
import { Scheduler } from '@cyclone/scheduler';

// What the nodes produce. `typed<T>()` declares a node's output for TypeScript only; a schema
// (zod, valibot, any Standard Schema) in its place would also check it when the attempt ends.
interface Order {
  orderId: string;
  items: string[];
  totalCents: number;
}
interface Charge {
  chargeId: string;
  amountCents: number;
}
interface Box {
  item: string;
  box: string;
}
interface Invoice {
  file: string;
}
interface Shipment {
  trackingId: string;
  boxes: number;
  invoice: string;
}

// The run input: `submit` checks it against the schema before it writes anything.
const orderInput = z.object({ orderId: z.string().min(1) });

// A definition is plain data: the client can submit it without importing any handler code.
export const invoice = workflow('invoice', { input: orderInput })
  .task('pdf', 'invoices.render', { output: typed<Invoice>() })
  .build();

export const order = workflow('order', { input: orderInput })
  .task('load', 'orders.load', { output: typed<Order>() })
  .task('charge', 'payments.charge', {
    dependsOn: ['load'],
    maxAttempts: 5,
    timeout: '30s',
    output: typed<Charge>(),
  })
  .task('list-items', 'orders.items', { dependsOn: ['load'], output: typed<string[]>() })
  // One item task per element of list-items' output, at most two at a time.
  .fanOut('pack', 'stock.pack-item', { from: 'list-items', maxParallel: 2, output: typed<Box>() })
  // Waits for a person (or another system): client.signal(runId, 'approved', payload).
  .waitSignal('approval', { signal: 'approved', dependsOn: ['charge'], maxWait: '2h' })
  // A run of the `invoice` workflow; the node's output is its `pdf` node's output.
  .child('invoice', { workflow: invoice, result: 'pdf', dependsOn: ['charge'] })
  .task('ship', 'shipping.ship', {
    dependsOn: ['charge', 'pack', 'approval', 'invoice'],
    output: typed<Shipment>(),
  })
  .build();

// Your domain code. Stand-ins here, returning what the real services would.
async function loadOrder(orderId: string): Promise<Order> {
  return { orderId, items: ['kettle', 'mug'], totalCents: 4_200 };
}
async function chargeCard(order: Order, { signal }: { signal: AbortSignal }): Promise<Charge> {
  signal.throwIfAborted(); // a real call takes the signal: cancellation and timeouts stop it
  return { chargeId: `ch_${order.orderId}`, amountCents: order.totalCents };
}
async function packItem(item: string): Promise<Box> {
  return { item, box: `box-${item}` };
}
async function renderInvoice(orderId: string): Promise<Invoice> {
  return { file: `${orderId}.pdf` };
}
async function ship(charge: Charge, boxes: Box[], invoice: Invoice): Promise<Shipment> {
  return { trackingId: `trk_${charge.chargeId}`, boxes: boxes.length, invoice: invoice.file };
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

// In one or many worker processes: a handler for each task and fan-out node, typed from the
// definition (ctx.input, ctx.deps, ctx.item and what it returns).
const worker = new Worker({
  connectionString,
  workflows: [order, invoice], // registered by name: child nodes start runs of them
  concurrency: 10,
  handlers: [
    handlersFor(order, {
      load: (ctx) => loadOrder(ctx.input.orderId),
      charge: (ctx) => chargeCard(ctx.deps.load, { signal: ctx.signal }),
      'list-items': (ctx) => ctx.deps.load.items,
      pack: (ctx) => packItem(ctx.item), // ctx.item, ctx.index: this element
      ship: (ctx) => ship(ctx.deps.charge, ctx.deps.pack, ctx.deps.invoice),
    }),
    // A child run gets its parent's input.
    handlersFor(invoice, { pdf: (ctx) => renderInvoice(ctx.input.orderId) }),
  ],
});
await worker.start();

// Somewhere (any number of replicas, one leads): reclaims the leases of dead workers, and more.
const scheduler = new Scheduler({ connectionString, workflows: [order, invoice] });
await scheduler.start();

// The result is typed from the definition: { ship: Shipment }, the output of its leaf node.
const result = await client.result(runId, { timeout: '1h' });
console.log(result); // { ship: { boxes: 2, ... } }

// Shut down: finish the steps in flight, stop scanning, close the connection pools.
await worker.stop({ timeout: '10s' });
await scheduler.stop();
await client.close();
