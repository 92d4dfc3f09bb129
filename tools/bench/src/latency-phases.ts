/**
 * Where an idle worker's latency goes, phase by phase: N jobs enqueued one at a time (each once
 * the previous one started) to an idle, listening Cyclone worker (concurrency 10), each sample
 * split at the moments the enqueue call returned, the worker heard the notification, its claim
 * was sent and came back, and the handler started. Medians, 90th and 99th percentiles per phase.
 *
 *   node --conditions=@cyclone/source --import tsx tools/bench/src/latency-phases.ts 300 [URL]
 *
 * The store's `subscribe` and `claim` are wrapped on the class (this process only) to read the
 * clock; nothing else of the worker changes. Without a URL an embedded PostgreSQL (durable
 * settings) is started.
 */
import pg from 'pg';
import { pino } from 'pino';
import { Client } from '@cyclone/client';
import { migrate, PostgresStore, type StoreListener } from '@cyclone/store-postgres';
import { Worker } from '@cyclone/worker';
import { startEmbeddedPostgres } from '@cyclone/test-db/embedded';
import { databaseUrl, quoteIdent, sleep } from './shared/db.js';
import { percentile } from './measurements/latency.js';

const n = Number(process.argv[2] ?? 300);
const given = process.argv[3];
const kind = 'bench.phases';

/** The moments of the sample under way (`performance.now()`); reset before each enqueue. */
let marks: { notified?: number; claimSent?: number; claimBack?: number } = {};

// Called with `.call(this, …)` on the store it wraps.
// eslint-disable-next-line @typescript-eslint/unbound-method
const subscribe = PostgresStore.prototype.subscribe;
PostgresStore.prototype.subscribe = function (listener: StoreListener) {
  const stepsAvailable = listener.stepsAvailable;
  return subscribe.call(this, {
    ...listener,
    ...(stepsAvailable
      ? {
          stepsAvailable: (k: string) => {
            marks.notified ??= performance.now();
            stepsAvailable(k);
          },
        }
      : {}),
  });
};
// eslint-disable-next-line @typescript-eslint/unbound-method
const claim = PostgresStore.prototype.claim;
PostgresStore.prototype.claim = async function (request) {
  const sent = performance.now();
  const steps = await claim.call(this, request);
  // The claim that took the sample's job: the first one that came back with a step.
  if (steps.length > 0 && marks.claimBack === undefined) {
    marks.claimSent = sent;
    marks.claimBack = performance.now();
  }
  return steps;
};

const embedded = given ? undefined : await startEmbeddedPostgres({ durable: true });
const serverUrl = given ?? embedded!.url;
const name = 'cyclone_bench_phases';
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}`);
await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
const url = databaseUrl(serverUrl, name);
await migrate({ connectionString: url });

const clientPool = new pg.Pool({ connectionString: url, max: 10 });
const workerPool = new pg.Pool({ connectionString: url, max: 10 });
const client = new Client({ pool: clientPool });
let onStart: ((at: number) => void) | undefined;
const worker = new Worker({
  pool: workerPool,
  concurrency: 10,
  logger: pino({ level: 'silent' }),
  handlers: {
    [kind]: () => {
      onStart?.(performance.now());
      return Promise.resolve();
    },
  },
});

const phases = {
  'enqueue call (statement, commit)': [] as number[],
  'commit to notification heard': [] as number[],
  'notification to claim sent': [] as number[],
  'claim (statement, commit)': [] as number[],
  'claim back to handler start': [] as number[],
  total: [] as number[],
};
try {
  await worker.start();
  await sleep(500);
  for (let i = 0; i < n; i++) {
    marks = {};
    const started = new Promise<number>((resolve) => (onStart = resolve));
    const sent = performance.now();
    await client.enqueue(kind, { i });
    const returned = performance.now();
    const at = await started;
    const { notified, claimSent, claimBack } = marks;
    // A sample whose job a poll found before the notification came says nothing of the phases.
    if (notified !== undefined && claimSent !== undefined && claimBack !== undefined) {
      phases['enqueue call (statement, commit)'].push(returned - sent);
      phases['commit to notification heard'].push(notified - returned);
      phases['notification to claim sent'].push(claimSent - notified);
      phases['claim (statement, commit)'].push(claimBack - claimSent);
      phases['claim back to handler start'].push(at - claimBack);
      phases.total.push(at - sent);
    }
    await sleep(Math.random() * 5);
  }
} finally {
  await worker.stop();
  await client.close();
  await clientPool.end();
  await workerPool.end();
  await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}`);
  await admin.end();
  await embedded?.stop();
}

const fmt = (ms: number) => ms.toFixed(3);
console.log(`${phases.total.length} of ${n} samples woken by their notification; ms:`);
console.table(
  Object.entries(phases).map(([phase, values]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return {
      phase,
      p50: fmt(percentile(sorted, 0.5)),
      p90: fmt(percentile(sorted, 0.9)),
      p99: fmt(percentile(sorted, 0.99)),
    };
  }),
);
