import { describe, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { typed, workflow } from '@cyclone/core';
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
