import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { permanent, typed, workflow } from '@cyclone/core';
import { migrate } from '@cyclone/store-postgres';
import { Client } from '@cyclone/client';
import { handlersFor, Worker } from '@cyclone/worker';

// The code under test: in an application these come from its own modules.
const refund = workflow('refund', { input: typed<{ amountCents: number }>() })
  .task('check', 'refunds.check', { output: typed<{ approved: boolean }>() })
  .task('pay', 'refunds.pay', { dependsOn: ['check'], output: typed<{ paymentRef: string }>() })
  .build();
const handlers = handlersFor(refund, {
  check: async (ctx) => {
    if (ctx.input.amountCents > 10_000) throw permanent(new Error('needs a manual review'));
    return { approved: true };
  },
  pay: async (ctx) => ({ paymentRef: `pay_${ctx.stepId}` }),
});

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');
// A schema of its own for this test file: its tables start empty, and parallel files never meet.
const schema = `test_refund_${process.pid}`;
let client: Client;
let worker: Worker;

before(async () => {
  await migrate({ connectionString, schema });
  client = new Client({ connectionString, schema });
  // The real worker with the real handlers, as production runs them.
  worker = new Worker({ connectionString, schema, handlers, workflows: [refund] });
  await worker.start();
});

after(async () => {
  await worker.stop({ timeout: '5s' });
  await client.close();
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
});

// node:test runs the tests in order after this module loads; `void` marks the promise as handled.
void test('a small refund is checked, then paid', async () => {
  const { runId } = await client.submit(refund, { amountCents: 2_500 });
  const result = await client.result(runId, { timeout: '30s' }); // typed: { pay: { paymentRef } }
  assert.match(result.pay.paymentRef, /^pay_/);
});

void test('a large refund fails at the check and is never paid', async () => {
  const { runId } = await client.submit(refund, { amountCents: 50_000 });
  const run = await client.wait(runId, { timeout: '30s' });
  assert.equal(run.state, 'failed');
  const steps = await client.listSteps(runId);
  const check = steps.find((step) => step.node === 'check');
  assert.equal(check?.state, 'discarded');
  assert.equal(check?.errorKind, 'permanent');
  assert.equal(steps.find((step) => step.node === 'pay')?.state, 'cancelled');
});
