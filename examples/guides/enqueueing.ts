import assert from 'node:assert/strict';
import { typed, workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { migrate } from '@cyclone/store-postgres';
import { handlersFor, Worker } from '@cyclone/worker';

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');
await migrate({ connectionString });

// A workflow of one task: a job with a typed input (a zod or valibot schema there is also
// validated by submit, before anything is written).
const welcome = workflow('welcome', { input: typed<{ email: string }>() })
  .task('send', 'email.welcome')
  .build();

const sent: string[] = [];
const worker = new Worker({
  connectionString,
  workflows: [welcome],
  handlers: {
    ...handlersFor(welcome, {
      send: async (ctx) => {
        sent.push(ctx.input.email); // typed from the definition: { email: string }
        return { sent: true };
      },
    }),
    // A standalone job's handler, by kind (its arguments are `unknown` to TypeScript).
    'audit.log': async () => ({ logged: true }),
  },
});
await worker.start();
const client = new Client({ connectionString });

// Enqueue once per key: the second call finds the first run and writes nothing.
const first = await client.submit(
  welcome,
  { email: 'ada@example.com' },
  { idempotencyKey: 'welcome:ada' },
);
const again = await client.submit(
  welcome,
  { email: 'ada@example.com' },
  { idempotencyKey: 'welcome:ada' },
);
assert.equal(first.created, true);
assert.equal(again.created, false); // a duplicate: the same run, not a new one
assert.equal(again.runId, first.runId);

// Many in one statement; with a key, each input's is the key and its position (batch-7:0, ...).
const batch = await client.submitMany(
  welcome,
  [{ email: 'bob@example.com' }, { email: 'cy@example.com' }],
  { idempotencyKey: 'batch-7' },
);
// A job: a run of one step of a kind, no definition needed.
const job = await client.enqueue('audit.log', { line: 'signed up' }, { idempotencyKey: 'audit-1' });

for (const { runId } of [first, ...batch, job]) await client.wait(runId, { timeout: '30s' });
console.log('sent to', sent.sort().join(', '));
console.log('job output', await client.result(job.runId));

await worker.stop();
await client.close();
