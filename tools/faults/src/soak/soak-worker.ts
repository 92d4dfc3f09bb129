/**
 * A worker process of the soak (`npm run soak`). Configured by the environment: `SOAK_WORKER_ID`,
 * `SOAK_CONCURRENCY` (default 25); it loads its code, says `loaded`, and starts its worker once the
 * database's URL arrives on stdin (so that loading overlaps the database's creation). It handles `soak.work`, whose
 * handler returns its input at once, and writes one JSON line a second on stdout: the inputs whose
 * handler returned (`done`), and the time of each claim statement and the queue wait of each step
 * it claimed (by the database's clock), so that the soak reads exact quantiles rather than
 * histogram buckets.
 */
import pg from 'pg';
import { pino } from 'pino';
import { Worker } from '@cyclone/worker';

const env = process.env;
process.stdout.write(`${JSON.stringify({ loaded: true })}\n`);
const url = await new Promise<string>((resolve) => {
  let text = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    text += chunk;
    if (text.includes('\n')) resolve(text.split('\n')[0]!.trim());
  });
});
const id = env.SOAK_WORKER_ID ?? `soak-worker-${process.pid}`;
const concurrency = Number(env.SOAK_CONCURRENCY ?? 25);

let done: number[] = [];
let claimMs: number[] = [];
let waitMs: number[] = [];

const pool = new pg.Pool({ connectionString: url, max: Math.min(10, concurrency) });
pool.on('error', () => undefined);
// The claim statement is timed where the worker sends it: the pool's `query`, named by the store.
const query = pool.query.bind(pool) as (config: unknown) => Promise<pg.QueryResult>;
(pool as unknown as { query: (config: unknown) => Promise<pg.QueryResult> }).query = (config) => {
  const name = (config as { name?: string } | undefined)?.name;
  if (typeof name !== 'string' || !name.startsWith('cyclone:claim-steps')) return query(config);
  const startedAt = performance.now();
  return query(config).then((result) => {
    claimMs.push(performance.now() - startedAt);
    for (const row of result.rows as { id: string | null; queue_wait_ms?: number }[]) {
      if (row.id !== null && row.queue_wait_ms !== undefined)
        waitMs.push(Number(row.queue_wait_ms));
    }
    return result;
  });
};

const worker = new Worker({
  pool,
  id,
  concurrency,
  leaseDuration: '60s',
  logger: pino({ level: env.SOAK_LOG_LEVEL ?? 'warn' }, pino.destination(2)),
  handlers: {
    'soak.work': (ctx) => {
      const { i } = ctx.input as { i: number };
      done.push(i);
      return { i };
    },
  },
});

function flush(): void {
  if (done.length + claimMs.length === 0) return;
  process.stdout.write(`${JSON.stringify({ done, claimMs, waitMs })}\n`);
  done = [];
  claimMs = [];
  waitMs = [];
}

const timer = setInterval(flush, 1_000);
process.on('SIGTERM', () => {
  void worker
    .stop({ timeout: '10s' })
    .then(() => {
      clearInterval(timer);
      flush();
      return pool.end();
    })
    .finally(() => process.exit(0));
});

await worker.start();
process.stdout.write(`${JSON.stringify({ ready: id })}\n`);
