import { setTimeout } from 'node:timers/promises';
import { permanent, snooze, workflow } from '@cyclone/core';
import { migrate } from '@cyclone/store-postgres';
import { Worker } from '@cyclone/worker';

const order = workflow('order')
  .task('charge', 'payments.charge', { maxAttempts: 5, timeout: '30s' })
  .task('ship', 'shipping.ship', { dependsOn: ['charge'] })
  .build();

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
  handlers: {
    'payments.charge': async (ctx) => {
      const { orderId } = ctx.input as { orderId: number };
      if (orderId < 0) throw permanent(new Error('no such order')); // discard now
      return { chargeId: `ch_${orderId}` }; // the step's output
    },
    'shipping.ship': async (ctx) => {
      const { chargeId } = ctx.deps['charge'] as { chargeId: string };
      const pickup = await bookPickup(chargeId, ctx.signal); // pass the signal to what waits
      if (pickup.busy) throw snooze('1m'); // the same attempt, a minute later
      return { chargeId, trackingId: pickup.trackingId };
    },
    'email.send': async (ctx) => {
      const { to } = ctx.input as { to: string };
      ctx.logger.info({ to }, 'email sent');
      return { sent: true };
    },
  },
});
await worker.start();

// Stop claiming, let the steps in flight finish (up to 10 s), release the rest, close the pool.
const stop = () => void worker.stop({ timeout: '10s' });
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
console.log('worker started; stop it with Ctrl-C');
