import { describe, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { job, typed, workflow } from '@cyclone/core';
import type { Client } from './client.js';

const order = workflow('order', { input: z.object({ orderId: z.string() }) })
  .task('load', 'orders.load', { output: typed<{ total: number }>() })
  .task('ship', 'shipping.ship', { dependsOn: ['load'], output: typed<{ tracking: string }>() })
  .build();
const plain = workflow('plain').task('a', 'k').build();

declare const client: Client;

describe('the client with a typed definition', () => {
  test('checks the input of submit and submitMany', async () => {
    await client.submit(order, { orderId: 'o-1' });
    // @ts-expect-error orderId must be text
    await client.submit(order, { orderId: 42 });
    // @ts-expect-error the input is required
    await client.submit(order);
    // @ts-expect-error one input lacks orderId
    await client.submitMany(order, [{ orderId: 'a' }, {}]);
  });

  test("types result() and a run handle's result() with the leaf outputs", async () => {
    const { runId } = await client.submit(order, { orderId: 'o-1' });
    const result = await client.result(runId);
    expectTypeOf(result).toEqualTypeOf<{ readonly ship: { tracking: string } }>();
    // @ts-expect-error load is not a leaf
    void result.load;
    expectTypeOf(await client.run(runId).result()).toEqualTypeOf<{
      readonly ship: { tracking: string };
    }>();
  });

  test('leaves untyped definitions and plain ids as before', async () => {
    const { runId } = await client.submit(plain, { anything: 1 });
    await client.submit(plain);
    expectTypeOf(await client.result(runId)).toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf(await client.result('a-run-id')).toEqualTypeOf<Record<string, unknown>>();
  });
});

describe('schedules of a typed definition', () => {
  test('check the input against the definition, and leave names and kinds untyped', async () => {
    await client.schedule({ id: 's', cron: '* * * * *', workflow: order, input: { orderId: 'o' } });
    await client.schedule({
      id: 's',
      cron: '* * * * *',
      workflow: order,
      // @ts-expect-error orderId must be text
      input: { orderId: 1 },
    });
    await client.schedule({ id: 's', cron: '* * * * *', workflow: 'order', input: 42 });
    await client.schedule({ id: 's', cron: '* * * * *', kind: 'emails.send', input: 'x' });
  });
});

describe('enqueue of a job declaration', () => {
  const sendEmail = job('emails.send', {
    input: z.object({ to: z.string(), cc: z.array(z.string()).default([]) }),
    output: typed<{ messageId: string }>(),
  });
  const untyped = job('reports.build');

  test('checks the arguments and types the result', async () => {
    const { runId } = await client.enqueue(sendEmail, { to: 'a@example.com' });
    expectTypeOf(await client.result(runId)).toEqualTypeOf<{
      readonly 'emails.send': { messageId: string };
    }>();
    // @ts-expect-error to must be text
    await client.enqueue(sendEmail, { to: 1 });
    // @ts-expect-error the arguments are required
    await client.enqueue(sendEmail);
    // @ts-expect-error one job lacks to
    await client.enqueueMany(sendEmail, [{ to: 'a' }, { cc: [] }]);
    const many = await client.enqueueMany(sendEmail, [{ to: 'a' }]);
    expectTypeOf(await client.result(many[0]!.runId)).toEqualTypeOf<{
      readonly 'emails.send': { messageId: string };
    }>();
  });

  test('leaves a kind by name, and a declaration without schemas, untyped', async () => {
    const { runId } = await client.enqueue('emails.send', { anything: true });
    await client.enqueue('emails.send');
    await client.enqueueMany('emails.send', [1, 'two']);
    expectTypeOf(await client.result(runId)).toEqualTypeOf<Record<string, unknown>>();
    await client.enqueue(untyped);
    await client.enqueue(untyped, 42, { priority: 1 });
    expectTypeOf(await client.result((await client.enqueue(untyped)).runId)).toEqualTypeOf<{
      readonly 'reports.build': unknown;
    }>();
  });
});
