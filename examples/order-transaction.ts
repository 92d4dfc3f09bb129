import pg from 'pg';
import { typed, workflow } from '@cyclone/core';
import { migrate } from '@cyclone/store-postgres';
import { Client } from '@cyclone/client';
import { handlersFor, Worker } from '@cyclone/worker';

export const order = workflow('order-recorded', { input: typed<{ orderId: string }>() })
  .task('load', 'orders.load', { output: typed<{ orderId: string; totalCents: number }>() })
  .task('record', 'orders.record', {
    dependsOn: ['load'],
    output: typed<{ orderId: string; recorded: boolean }>(),
  })
  .task('ship', 'shipping.ship', { dependsOn: ['record'], output: typed<{ trackingId: string }>() })
  .build();

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');
await migrate({ connectionString });

// The application's own table, in the same database as Cyclone's.
const pool = new pg.Pool({ connectionString });
await pool.query(`CREATE TABLE IF NOT EXISTS app_orders (
  order_id text PRIMARY KEY, total_cents int NOT NULL, recorded_by uuid NOT NULL)`);

const client = new Client({ connectionString });
const worker = new Worker({
  connectionString,
  workflows: [order],
  handlers: [
    handlersFor(order, {
      load: async (ctx) => ({ orderId: ctx.input.orderId, totalCents: 4_200 }),
      // The order row, the confirmation email's job and this step's completion commit together,
      // or not at all: a crash, a cancel or a lost lease before the commit leaves none of them.
      record: (ctx) =>
        ctx.transaction(async (tx) => {
          const { orderId, totalCents } = ctx.deps.load;
          await tx.query(
            'INSERT INTO app_orders (order_id, total_cents, recorded_by) VALUES ($1, $2, $3)',
            [orderId, totalCents, ctx.stepId],
          );
          await client.enqueue('email.confirm', { orderId }, { tx });
          return { orderId, recorded: true }; // the step's output
        }),
      ship: async (ctx) => ({ trackingId: `trk_${ctx.deps.record.orderId}` }),
    }),
    { 'email.confirm': async () => ({ sent: true }) }, // the standalone job's kind
  ],
});
await worker.start();

const { runId } = await client.submit(order, { orderId: `o-${Date.now()}` });
console.log(await client.result(runId, { timeout: '1m' })); // { ship: { trackingId: 'trk_o-...' } }
const { rows } = await pool.query<{ orders: number }>(
  'SELECT count(*)::int AS orders FROM app_orders WHERE recorded_by = (SELECT id FROM cyclone_steps WHERE run_id = $1 AND node = $2)',
  [runId, 'record'],
);
console.log(`orders recorded for the run: ${rows[0]!.orders}`); // 1

await worker.stop({ timeout: '10s' });
await client.close();
await pool.end();
