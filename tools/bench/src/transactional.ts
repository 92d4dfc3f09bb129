/**
 * What `ctx.transaction` costs a job: three sets of N jobs wait in one database and a Cyclone
 * worker (concurrency C, opened from the URL: its pool of 4 and, for the transactions, a pool of
 * at most C) drains each in turn, timed from its start to the set's last completion:
 *
 * - `plain`: the bench's no-op job;
 * - `row`: the job writes one row of the application's with a statement of its own on a pool of 4
 *   connections, then returns (the effect at least once: what a handler does without a
 *   transaction);
 * - `transactional`: the job writes the same row inside `ctx.transaction` (`BEGIN`, the row, the
 *   completion, `COMMIT` on a connection of the worker's transaction pool).
 *
 * The order of the sets alternates between rounds; a warm-up set runs first, untimed. The figures
 * are each set's jobs/s (median over the rounds) and `transactional` as a share of `row` and of
 * `plain`, all from the same run: on a shared machine the ratios mean more than the rates.
 *
 *   node --conditions=@cyclone/source --import tsx tools/bench/src/transactional.ts 5000 [URL [rounds [concurrency]]]
 *
 * Without a URL it runs on an embedded server (durable settings).
 */
import pg from 'pg';
import { pino } from 'pino';
import { Client } from '@cyclone/client';
import { migrate } from '@cyclone/store-postgres';
import { startEmbeddedPostgres } from '@cyclone/test-db/embedded';
import { Worker, type Handler } from '@cyclone/worker';
import { databaseUrl, quoteIdent, scalar, sleep } from './shared/db.js';

const n = Number(process.argv[2] ?? 5_000);
const given = process.argv[3] || undefined; // "" too: the embedded server
const rounds = Number(process.argv[4] ?? 3);
const concurrency = Number(process.argv[5] ?? 50);
if (!(n >= 100))
  throw new Error(`transactional.ts: N must be at least 100, got "${process.argv[2]}"`);

const sets = ['plain', 'row', 'transactional'] as const;
type SetName = (typeof sets)[number];
const kindOf = (set: SetName | 'warm') => `bench.${set}`;
const insertRow = 'INSERT INTO bench_orders (job) VALUES ($1)';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Drains the jobs of `kind` already queued; resolves with the seconds it took. */
async function drainKind(url: string, pool: pg.Pool, kind: string, handler: Handler) {
  const worker = new Worker({
    connectionString: url,
    concurrency,
    logger: pino({ level: 'silent' }),
    handlers: { [kind]: handler },
  });
  const t0 = performance.now();
  await worker.start();
  for (;;) {
    const open = await scalar(
      pool,
      `SELECT count(*) AS n FROM cyclone_steps WHERE kind = $1 AND state <> 'completed'`,
      [kind],
    );
    if (open === 0) break;
    await sleep(10);
  }
  const seconds = (performance.now() - t0) / 1000;
  await worker.stop({ timeout: '10s' });
  return seconds;
}

const embedded = given ? undefined : await startEmbeddedPostgres({ durable: true });
const serverUrl = given ?? embedded!.url;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
const rates: Record<SetName, number[]> = { plain: [], row: [], transactional: [] };
try {
  for (let round = 1; round <= rounds; round++) {
    const name = 'cyclone_bench_transactional';
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    const url = databaseUrl(serverUrl, name);
    await migrate({ connectionString: url });
    // The row set writes through this pool of 4, as an application's small pool would.
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    pool.on('error', () => undefined);
    await pool.query('CREATE TABLE bench_orders (id bigserial PRIMARY KEY, job int NOT NULL)');
    const client = new Client({ pool });
    const handlers: Record<SetName | 'warm', Handler> = {
      warm: () => null,
      plain: () => null,
      row: async (ctx) => {
        await pool.query(insertRow, [(ctx.input as { i: number }).i]);
        return null;
      },
      transactional: (ctx) =>
        ctx.transaction(async (tx) => {
          await tx.query(insertRow, [(ctx.input as { i: number }).i]);
          return null;
        }),
    };
    for (const set of ['warm', ...sets] as const) {
      const size = set === 'warm' ? Math.min(n, 1_000) : n;
      for (let start = 0; start < size; start += 2_000) {
        const args = Array.from({ length: Math.min(2_000, size - start) }, (_, k) => ({
          i: start + k,
        }));
        await client.enqueueMany(kindOf(set), args);
      }
    }
    await pool.query('VACUUM ANALYZE');
    await drainKind(url, pool, kindOf('warm'), handlers.warm);
    const order = round % 2 === 1 ? sets : [...sets].reverse();
    for (const set of order) {
      const seconds = await drainKind(url, pool, kindOf(set), handlers[set]);
      rates[set].push(n / seconds);
    }
    const rows = await scalar(pool, 'SELECT count(*) AS n FROM bench_orders');
    if (rows !== 2 * n) throw new Error(`expected ${2 * n} rows of bench_orders, found ${rows}`);
    await client.close();
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    console.log(
      `round ${round}: ${order.map((s) => `${s} ${Math.round(rates[s].at(-1)!)}/s`).join(', ')}`,
    );
  }
} finally {
  await admin.end();
  await embedded?.stop();
}
const plain = median(rates.plain);
const row = median(rates.row);
const transactional = median(rates.transactional);
console.log(
  `transactional: n=${n} concurrency=${concurrency} rounds=${rounds} plain=${Math.round(plain)}/s ` +
    `row=${Math.round(row)}/s transactional=${Math.round(transactional)}/s ` +
    `transactional/row=${(transactional / row).toFixed(2)}x transactional/plain=${(transactional / plain).toFixed(2)}x`,
);
