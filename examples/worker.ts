import { setTimeout } from 'node:timers/promises';
import { z } from 'zod';
import { permanent, snooze } from '@cyclone/core';
import { migrate } from '@cyclone/store-postgres';
import { handlersFor, Worker } from '@cyclone/worker';
import { order } from './order-definition.js';

// A standalone job's arguments (`client.enqueue('email.send', { to })`): a handler by kind sees
// its input as unknown, so it parses it.
const emailArgs = z.object({ to: z.string() });

/** A stand-in for a carrier's API: books a pickup, or answers that it is busy. */
async function bookPickup(chargeId: string, signal: AbortSignal) {
  await setTimeout(5, undefined, { signal });
  return { trackingId: `trk_${chargeId}`, busy: false };
}

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');
await migrate({ connectionString }); // idempotent; several processes may call it at once

const worker = new Worker({
  connectionString,
  workflows: [order],
  concurrency: 10,
  handlers: [
    // The order's nodes, typed from its definition: ctx.input, ctx.deps and the return values.
    handlersFor(order, {
      charge: async (ctx) => {
        const { orderId } = ctx.input;
        if (orderId < 0) throw permanent(new Error('no such order')); // discard now
        return { chargeId: `ch_${orderId}` }; // the step's output
      },
      ship: async (ctx) => {
        const { chargeId } = ctx.deps.charge;
        const pickup = await bookPickup(chargeId, ctx.signal); // pass the signal to what waits
        if (pickup.busy) throw snooze('1m'); // the same attempt, a minute later
        return { chargeId, trackingId: pickup.trackingId };
      },
    }),
    // Handlers by kind: a standalone job's kind, which no workflow node names.
    {
      'email.send': async (ctx) => {
        const { to } = emailArgs.parse(ctx.input);
        ctx.logger.info({ to }, 'email sent');
        return { sent: true };
      },
    },
  ],
});
await worker.start();

// Stop claiming, let the steps in flight finish (up to 10 s), release the rest, close the pool.
const stop = () => void worker.stop({ timeout: '10s' });
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
console.log('worker started; stop it with Ctrl-C');
