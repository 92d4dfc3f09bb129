import assert from 'node:assert/strict';
import { permanent, RunFailedError, snooze, typed, workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { migrate } from '@cyclone/store-postgres';
import { handlersFor, Worker } from '@cyclone/worker';

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');
await migrate({ connectionString });

const sync = workflow('crm-sync', { input: typed<{ account: string }>() })
  .task('fetch', 'crm.fetch', {
    maxAttempts: 4, // the fourth failure discards the step and fails the run
    backoff: { initial: '100ms', factor: 2, max: '1s' }, // 100 ms, 200 ms, 400 ms, less jitter
    output: typed<{ account: string; attempt: number }>(),
  })
  .build();

let calls = 0;
const worker = new Worker({
  connectionString,
  workflows: [sync],
  handlers: handlersFor(sync, {
    fetch: async (ctx) => {
      calls += 1;
      if (ctx.input.account === 'gone') throw permanent(new Error('no such account')); // no retry
      if (calls === 1) throw snooze('200ms'); // "come back later": the attempt is not charged
      if (ctx.attempt < 3) throw new Error('CRM timed out'); // retryable: again after the backoff
      return { account: ctx.input.account, attempt: ctx.attempt };
    },
  }),
});
await worker.start();
const client = new Client({ connectionString });

const ok = await client.submit(sync, { account: 'acme' });
const result = await client.result(ok.runId); // typed: { fetch: { account, attempt } }
assert.equal(result.fetch.attempt, 3); // snoozed once, failed twice, then succeeded
console.log('acme synced at attempt', result.fetch.attempt, 'after', calls, 'calls');

const gone = await client.submit(sync, { account: 'gone' });
try {
  await client.result(gone.runId);
} catch (error) {
  if (!(error instanceof RunFailedError)) throw error;
  console.log('gone:', error.errorKind, error.error); // permanent no such account
}
// The discarded step is in the dead-letter queue until retried (client.retry, redrive).
const { steps } = await client.listExhausted({ workflow: 'crm-sync' });
assert.deepEqual(
  steps.map((step) => [step.node, step.reason, step.attempts]),
  [['fetch', 'permanent', 1]],
);

await worker.stop();
await client.close();
