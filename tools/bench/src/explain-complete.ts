/** Prints EXPLAIN ANALYZE of one batch completion of 50 claimed jobs (a tuning aid). */
import pg from 'pg';
import { Client } from '@cyclone/client';
import { migrate, PostgresStore, tablesIn } from '@cyclone/store-postgres';
import { completeSteps } from '../../../packages/store-postgres/src/sql/complete-steps.js';
import { startEmbeddedPostgres } from './embedded.js';

const server = await startEmbeddedPostgres();
try {
  await migrate({ connectionString: server.url });
  const pool = new pg.Pool({ connectionString: server.url, max: 2 });
  const client = new Client({ pool });
  await client.enqueueMany('noop', Array.from({ length: 5_000 }, (_, j) => ({ j })));
  await pool.query('ANALYZE');
  const store = new PostgresStore({ pool });
  for (let round = 0; round < 3; round++) {
    const claimed = await store.claim({ kinds: ['noop'], limit: 50, workerId: 'w', leaseMs: 30_000 });
    const { rows } = await pool.query(`EXPLAIN (ANALYZE, TIMING) ${completeSteps.text(tablesIn())}`, [
      claimed.map((s) => s.id),
      claimed.map((s) => s.claimToken),
      claimed.map(() => 'null'),
      ['running'],
      ['running', 'paused'],
      ['pending'],
    ]);
    if (round === 2) console.log(rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
  }
  await client.close();
  await pool.end();
} finally {
  await server.stop();
}
