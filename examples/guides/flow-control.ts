import assert from 'node:assert/strict';
import { setTimeout } from 'node:timers/promises';
import { typed, workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { migrate } from '@cyclone/store-postgres';
import { handlersFor, Worker } from '@cyclone/worker';

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');
await migrate({ connectionString });

// Each page is keyed by its tenant: what a per-key cap, a per-key rate limit and fair share count by.
const report = workflow('tenant-report', { input: typed<{ tenant: string; page: number }>() })
  .task('page', 'reports.page', { concurrencyKey: 'tenant', output: typed<{ tenant: string }>() })
  .build();

const client = new Client({ connectionString });
// Stored in the database: every worker on every machine obeys them at its next claim.
await client.setConcurrencyLimit({ kind: 'reports.page', max: 2, perKey: true }); // 2 per tenant
await client.setRateLimit({ kind: 'reports.page', limit: 1_000, period: '1m' }); // all tenants
await client.setFairShare({ kind: 'reports.page', weights: { big: 1 } }); // tenants take turns

// One tenant's backlog, then another's two pages, then one urgent page.
const runs = [
  ...(await client.submitMany(
    report,
    Array.from({ length: 20 }, (_, page) => ({ tenant: 'big', page })),
  )),
  ...(await client.submitMany(report, [
    { tenant: 'small', page: 0 },
    { tenant: 'small', page: 1 },
  ])),
  await client.submit(report, { tenant: 'vip', page: 0 }, { priority: 10 }), // higher first
];

const order: string[] = [];
const worker = new Worker({
  connectionString,
  workflows: [report],
  concurrency: 2,
  handlers: handlersFor(report, {
    page: async (ctx) => {
      order.push(ctx.input.tenant);
      await setTimeout(10);
      return { tenant: ctx.input.tenant };
    },
  }),
});
await worker.start();
for (const { runId } of runs) await client.wait(runId, { timeout: '1m' });

console.log('started in order:', order.join(' '));
assert.equal(order[0], 'vip'); // the priority orders first
assert.ok(order.lastIndexOf('small') < 8, 'small waited behind the whole backlog'); // turns
console.log(await client.listConcurrencyLimits()); // [{ kind, max: 2, perKey: true, running, waiting }]

await client.removeFairShare('reports.page');
await client.removeRateLimit('reports.page');
await client.removeConcurrencyLimit('reports.page');
await worker.stop();
await client.close();
