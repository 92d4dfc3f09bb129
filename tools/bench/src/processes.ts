/**
 * Several worker processes on one PostgreSQL: for 1, 2 and 4 processes (concurrency 50 each), the
 * jobs/s of the lot and how evenly the claims spread over them (each process's share of the
 * jobs, the smallest over the largest). Each count gets a fresh database on an embedded server;
 * the workers start and listen first, then N jobs are enqueued, and the clock runs from the first
 * enqueue until the database shows every job completed.
 *
 *   node --conditions=@cyclone/source --import tsx tools/bench/src/processes.ts 20000 1,2,4
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { Client } from '@cyclone/client';
import { migrate } from '@cyclone/store-postgres';
import { Worker } from '@cyclone/worker';
import { startEmbeddedPostgres } from '@cyclone/test-db/embedded';
import { databaseUrl, quoteIdent, scalar, sleep } from './shared/db.js';

const kind = 'bench.noop';

if (process.argv[2] === '--child') {
  await child(process.argv[3]!);
} else {
  await main(
    Number(process.argv[2] ?? 20_000),
    (process.argv[3] ?? '1,2,4').split(',').map(Number),
  );
}

/** A worker process: starts, says `ready`, and stops at SIGTERM. */
async function child(url: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => undefined);
  const worker = new Worker({
    pool,
    concurrency: 50,
    logger: pino({ level: 'silent' }),
    handlers: { [kind]: () => Promise.resolve(null) },
  });
  await worker.start();
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => {
    void worker
      .stop({ timeout: '5s' })
      .then(() => pool.end())
      .then(() => process.exit(0));
  });
}

async function main(n: number, counts: readonly number[]): Promise<void> {
  const server = await startEmbeddedPostgres({ durable: true });
  const rows: Record<string, string | number>[] = [];
  try {
    const admin = new pg.Pool({ connectionString: server.url, max: 2 });
    admin.on('error', () => undefined);
    for (const count of counts) {
      const name = `cyclone_processes_${count}`;
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}`);
      await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
      const url = databaseUrl(server.url, name);
      await migrate({ connectionString: url });
      const children = await Promise.all(Array.from({ length: count }, () => startChild(url)));
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      pool.on('error', () => undefined);
      const client = new Client({ pool });
      const t0 = performance.now();
      for (let i = 0; i < n; i += 2_000) {
        await client.enqueueMany(
          kind,
          Array.from({ length: Math.min(2_000, n - i) }, (_, j) => ({ i: i + j })),
        );
      }
      while (
        (await scalar(pool, `SELECT count(*) AS n FROM cyclone_runs WHERE state = 'completed'`)) < n
      ) {
        await sleep(20);
      }
      const seconds = (performance.now() - t0) / 1000;
      const { rows: shares } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM cyclone_steps GROUP BY claimed_by ORDER BY 1`,
      );
      await Promise.all(children.map(stopChild));
      const per = shares.map((s) => s.n);
      rows.push({
        processes: count,
        'jobs/s': Math.round(n / seconds),
        'jobs per process': per.join(' / '),
        'fairness (min/max)': per.length < count ? 0 : (per[0]! / per[per.length - 1]!).toFixed(2),
      });
      await pool.end();
      await admin.query(`DROP DATABASE ${quoteIdent(name)} WITH (FORCE)`);
    }
    await admin.end();
    console.log(`${n} jobs, concurrency 50 per process`);
    console.table(rows);
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

function startChild(url: string): Promise<ChildProcess> {
  const proc = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--child', url],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`worker process exited (${code})`)));
    proc.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve(proc);
    });
  });
}

function stopChild(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    proc.removeAllListeners('exit');
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });
}
