import assert from 'node:assert/strict';
import { setTimeout } from 'node:timers/promises';
import { typed, workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { migrate } from '@cyclone/store-postgres';
import { handlersFor, Worker } from '@cyclone/worker';

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');
await migrate({ connectionString });

const report = workflow('report', { input: typed<{ pages: number }>() })
  .task('render', 'reports.render', { output: typed<{ pages: number }>() })
  .build();

const started = new Set<number>();
const worker = new Worker({
  connectionString,
  workflows: [report],
  handlers: handlersFor(report, {
    render: async (ctx) => {
      started.add(ctx.input.pages);
      for (let page = 1; page <= ctx.input.pages; page++) {
        // Pass ctx.signal to whatever waits: a cancel or a stop's deadline aborts it at once.
        await setTimeout(20, undefined, { signal: ctx.signal });
      }
      return { pages: ctx.input.pages };
    },
  }),
});
await worker.start();
const client = new Client({ connectionString });

/** Resolves once a handler is rendering a report of `pages` pages. */
async function rendering(pages: number): Promise<void> {
  while (!started.has(pages)) await setTimeout(10);
}

// Cancelling a run: its open steps are cancelled and a running handler's ctx.signal aborts.
const long = await client.submit(report, { pages: 10_000 });
await rendering(10_000);
await client.cancel(long.runId);
assert.equal((await client.wait(long.runId, { timeout: '30s' })).state, 'cancelled');

// A graceful stop: claim nothing more, let in-flight handlers finish for up to `timeout`,
// then abort the rest and release their steps (no attempt charged) for another worker.
const short = await client.submit(report, { pages: 5 });
const slow = await client.submit(report, { pages: 9_000 });
await Promise.all([rendering(5), rendering(9_000)]);
await worker.stop({ timeout: '1s' });

console.log('short run:', (await client.getRun(short.runId)).state); // completed
const [step] = await client.listSteps(slow.runId);
console.log('slow run:', (await client.getRun(slow.runId)).state, step?.state); // running available

await client.cancel(slow.runId); // no worker serves it any more here
await client.close();
