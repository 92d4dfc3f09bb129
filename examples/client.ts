import { Client } from '@cyclone/client';
import { order } from './order-definition.js';

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');
const client = new Client({ connectionString });

// The input is checked against the schema, by TypeScript and again before anything is written.
const { runId } = await client.submit(order, { orderId: 42 }, { idempotencyKey: 'order-42' });
const run = await client.wait(runId, { timeout: '5m' }); // woken by LISTEN/NOTIFY, not a busy poll
const result = await client.result(runId); // typed: { ship: { chargeId, trackingId } }
console.log(run.state, result); // 'completed' { ship: ... }

await client.enqueue('email.send', { to: 'ada@example.com' }); // a standalone job: a run of one step
await client.close();
