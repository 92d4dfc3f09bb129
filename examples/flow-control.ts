import { typed, workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { migrate } from '@cyclone/store-postgres';
import { handlersFor, Worker } from '@cyclone/worker';

// Each order's charge is keyed by its customer: at most one charge per customer runs at once.
const order = workflow('order', { input: typed<{ customerId: string; orderId: number }>() })
  .task('charge', 'payments.charge', { concurrencyKey: 'customerId' })
  .task('receipt', 'email.receipt', { dependsOn: ['charge'], priority: -1 }) // after other mail
  .build();

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');
await migrate({ connectionString });

const client = new Client({ connectionString });
// Stored in the database: every worker on every machine obeys them.
await client.setConcurrencyLimit({ kind: 'payments.charge', max: 1, perKey: true });
await client.setRateLimit({ kind: 'email.receipt', limit: 100, period: '1m' });

let running = 0;
let most = 0;
const worker = new Worker({
  connectionString,
  workflows: [order],
  concurrency: 10,
  handlers: [
    handlersFor(order, {
      charge: async (ctx) => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running -= 1;
        return { charged: ctx.input.customerId };
      },
    }),
    // By kind: one handler for the receipt nodes and the standalone receipt job enqueued below.
    { 'email.receipt': async () => ({ sent: true }) },
  ],
});
await worker.start();

// Three orders of one customer: their charges run one after another, never side by side.
const runs = await Promise.all(
  [1, 2, 3].map((n) => client.submit(order, { customerId: 'cus_7', orderId: n })),
);
await client.enqueue('email.receipt', { to: 'vip@example.com' }, { priority: 10 }); // first in line
for (const { runId } of runs) await client.wait(runId, { timeout: '1m' });

console.log('most charges of one customer at once:', most);
console.log(await client.listConcurrencyLimits()); // [{ kind, max, perKey, running, waiting }]
console.log(await client.listRateLimits()); // [{ kind, limit, period: '1m', perKey }]

await client.removeConcurrencyLimit('payments.charge');
await client.removeRateLimit('email.receipt');
await worker.stop();
await client.close();
