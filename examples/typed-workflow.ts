import { z } from 'zod';
import {
  RunFailedError,
  typed,
  ValidationError,
  workflow,
  type ResultOf,
  type SubmitInputOf,
} from '@cyclone/core';
import { migrate } from '@cyclone/store-postgres';
import { Client } from '@cyclone/client';
import { handlersFor, Worker } from '@cyclone/worker';

// The input schema: `submit` takes its input type, handlers see its output (reason defaulted).
const refundInput = z.object({
  orderId: z.string().min(1),
  amountCents: z.number().int().positive(),
  reason: z.string().default('customer request'),
});

export const refund = workflow('refund', { input: refundInput })
  // A schema checks the handler's value when the attempt ends; typed<T>() only declares a type.
  .task('check', 'refunds.check', {
    output: z.object({ approved: z.boolean(), score: z.number().min(0).max(1) }),
  })
  .task('lines', 'refunds.lines', { dependsOn: ['check'], output: typed<string[]>() })
  .fanOut('restock', 'stock.restock', { from: 'lines', output: typed<{ sku: string }>() })
  .task('pay', 'refunds.pay', {
    dependsOn: ['check', 'restock'],
    output: typed<{ paymentRef: string; restocked: number }>(),
  })
  .build();

// A stand-in for a risk service. Its score should lie in [0, 1]; for one order it does not, a
// bug no type can see, which the output schema catches.
async function riskDecision(orderId: string) {
  const score = orderId === 'o-odd' ? 1.7 : 0.2;
  return { approved: score < 0.5, score };
}

const handlers = handlersFor(refund, {
  check: async (ctx) => riskDecision(ctx.input.orderId),
  lines: async (ctx) => (ctx.deps.check.approved ? ['kettle', 'mug'] : []),
  restock: async (ctx) => ({ sku: ctx.item }), // ctx.item: string, an element of lines' output
  pay: async (ctx) => ({
    paymentRef: `pay_${ctx.input.orderId}_${ctx.input.amountCents}`,
    restocked: ctx.deps.restock.length, // { sku: string }[]: the items' outputs in order
  }),
});

// The helpers name the same types for your own code, e.g. a route that takes a request body.
async function requestRefund(
  client: Client,
  body: SubmitInputOf<typeof refund>,
): Promise<ResultOf<typeof refund>> {
  const { runId } = await client.submit(refund, body);
  return client.result(runId, { timeout: '1m' });
}

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');
await migrate({ connectionString });

const client = new Client({ connectionString });
const worker = new Worker({ connectionString, workflows: [refund], handlers });
await worker.start();

const { pay } = await requestRefund(client, { orderId: 'o-1', amountCents: 1_250 });
console.log('paid', pay.paymentRef, 'restocked', pay.restocked); // paid pay_o-1_1250 restocked 2

// An input the types allow and the schema does not is refused at submit, before anything is
// written, with every issue.
try {
  await client.submit(refund, { orderId: '', amountCents: -5 });
} catch (error) {
  if (!(error instanceof ValidationError)) throw error;
  console.log(error.code, error.issues); // VALIDATION [{ path: ['orderId'], message }, ...]
}

// An output that fails its node's schema fails the attempt as permanent: no retry, no dependent.
try {
  await requestRefund(client, { orderId: 'o-odd', amountCents: 300 });
} catch (error) {
  if (!(error instanceof RunFailedError)) throw error;
  console.log(error.state, error.failedNode, error.errorKind); // failed check permanent
}

await worker.stop({ timeout: '10s' });
await client.close();
