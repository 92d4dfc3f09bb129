import { workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';

const order = workflow('order')
  .task('charge', 'payments.charge', { maxAttempts: 5 })
  .task('ship', 'shipping.ship', { dependsOn: ['charge'] })
  .build();

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');
const client = new Client({ connectionString });

const { runId } = await client.submit(order, { orderId: 42 }, { idempotencyKey: 'order-42' });
const run = await client.wait(runId, { timeout: '5m' }); // woken by LISTEN/NOTIFY, not a busy poll
console.log(run.state, await client.result(runId)); // 'completed' { ship: ... }

await client.enqueue('email.send', { to: 'ada@example.com' }); // a standalone job: a run of one step
await client.close();
