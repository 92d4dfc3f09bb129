/**
 * Profiles Cyclone's own statements: starts an embedded PostgreSQL with pg_stat_statements,
 * enqueues N no-op jobs, drains them with one worker, and prints where the database time went,
 * statement by statement. Run the process with `--cpu-prof` to profile the Node side too:
 *
 *   node --cpu-prof --cpu-prof-dir=tools/bench/results --conditions=@cyclone/source --import tsx \
 *     tools/bench/src/profile.ts 20000 50
 */
import pg from 'pg';
import { pino } from 'pino';
import { Client } from '@cyclone/client';
import { migrate } from '@cyclone/store-postgres';
import { Worker } from '@cyclone/worker';
import { startEmbeddedPostgres } from '@cyclone/test-db/embedded';

const n = Number(process.argv[2] ?? 20_000);
const concurrency = Number(process.argv[3] ?? 50);
const server = await startEmbeddedPostgres({
  durable: true,
  settings: { shared_preload_libraries: 'pg_stat_statements' },
});
try {
  const url = server.url;
  await migrate({ connectionString: url });
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined); // an idle connection's error must not end the profile
  await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const client = new Client({ connectionString: url });
  const t0 = performance.now();
  for (let i = 0; i < n; i += 2_000) {
    await client.enqueueMany(
      'noop',
      Array.from({ length: Math.min(2_000, n - i) }, (_, j) => ({ j })),
    );
  }
  const enqueueMs = performance.now() - t0;
  const worker = new Worker({
    connectionString: url,
    handlers: { noop: () => null },
    concurrency,
    logger: pino({ level: 'silent' }),
  });
  const t1 = performance.now();
  await worker.start();
  for (;;) {
    // Open jobs from the two small partial indexes, not a count over the whole runs table.
    const { rows } = await pool.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM cyclone_steps WHERE state = 'available')
            + (SELECT count(*) FROM cyclone_steps WHERE state = 'running') AS n`,
    );
    if (Number(rows[0]!.n) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const drainMs = performance.now() - t1;
  await worker.stop();
  console.log(
    `enqueue ${Math.round(n / (enqueueMs / 1000))} jobs/s, drain c=${concurrency} ${Math.round(n / (drainMs / 1000))} jobs/s`,
  );
  const { rows } = await pool.query<{
    query: string;
    calls: string;
    total: number;
    mean: number;
    rows: string;
  }>(
    `SELECT regexp_replace(left(query, 60), '\\s+', ' ', 'g') AS query, calls, round(total_exec_time::numeric, 1)::float AS total,
            round(mean_exec_time::numeric, 3)::float AS mean, rows
     FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'
     ORDER BY total_exec_time DESC LIMIT 12`,
  );
  console.table(rows);
  await client.close();
  await pool.end();
} finally {
  await server.stop();
}
