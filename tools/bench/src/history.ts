/**
 * Whether history slows the present, and what dropping a period of events costs. One embedded
 * PostgreSQL (durable settings), two databases: one empty, one holding N finished jobs (their runs
 * and steps, as retention would find them). In alternating rounds each database gets a queue of
 * Q jobs drained by the store's claim (250 at a time) and completion, one after the other on one
 * connection, so the figure is the statements' cost, not a worker's scheduling. Then a period
 * partition of `cyclone_events` is filled with E events of runs already deleted and dropped by
 * `maintainEventPartitions`, while a loop of single claims and completions runs beside it: the drop's
 * time and the claims' latency during it are printed.
 *
 *   node --conditions=@cyclone/source --import tsx tools/bench/src/history.ts 1000000 10000 3 1000000
 *
 * (history rows, queued jobs, rounds, events in the dropped period). The machine is shared: the
 * ratio of the two databases' medians, taken in one run, is the figure to read.
 */
import pg from 'pg';
import { Client } from '@cyclone/client';
import { migrate, PostgresStore } from '@cyclone/store-postgres';
import { startEmbeddedPostgres } from '@cyclone/test-db/embedded';
import { cloneRows, databaseUrl, quoteIdent, scalar } from './shared/db.js';
import { claimLoop, drainJobs, median, quantile } from './shared/drain.js';

const historyRows = Number(process.argv[2] ?? 1_000_000);
const queued = Number(process.argv[3] ?? 10_000);
const rounds = Number(process.argv[4] ?? 3);
const periodEvents = Number(process.argv[5] ?? 1_000_000);
const kind = 'history.noop';
const DAY = 86_400_000;

/** A UUID whose first 48 bits are `ms` + g: a run id made at that millisecond (SQL over `g`). */
const idAt = (ms: number) =>
  `(lpad(to_hex(${ms}::bigint + g), 12, '0') || '7000' || lpad(to_hex(g), 16, '0'))::uuid`;

interface Db {
  readonly name: string;
  readonly pool: pg.Pool;
  readonly store: PostgresStore;
  readonly client: Client;
}

async function open(serverUrl: string, admin: pg.Pool, name: string): Promise<Db> {
  await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}`);
  await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
  const url = databaseUrl(serverUrl, name);
  await migrate({ connectionString: url });
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  return { name, pool, store: new PostgresStore({ pool }), client: new Client({ pool }) };
}

/** Fills `db` with `n` finished jobs, copies of one that ran, created over the past week. */
async function fillHistory(db: Db, n: number): Promise<void> {
  const [template] = await db.client.enqueueMany(kind, [null]);
  await drain(db, 1);
  const runId = template!.runId;
  const from = Date.now() - 7 * DAY;
  const spacing = Math.max(1, Math.floor((6 * DAY) / n));
  const id = `(lpad(to_hex(${from}::bigint + g * ${spacing}), 12, '0') || '7000' || lpad(to_hex(g), 16, '0'))::uuid`;
  await cloneRows(db.pool, {
    schema: 'public',
    table: 'cyclone_runs',
    where: 'id = $1',
    whereParams: [runId],
    n,
    overrides: { id },
  });
  await cloneRows(db.pool, {
    schema: 'public',
    table: 'cyclone_steps',
    where: 'id = $1',
    whereParams: [runId],
    n,
    overrides: { id, run_id: id },
  });
  await db.pool.query('VACUUM ANALYZE');
}

/** Claims and completes `n` queued jobs, 250 at a time; resolves with the seconds it took. */
const drain = (db: Db, n: number) => drainJobs(db.store, kind, n, db.name);

async function enqueue(db: Db, n: number): Promise<void> {
  for (let i = 0; i < n; i += 2_000) {
    await db.client.enqueueMany(
      kind,
      Array.from({ length: Math.min(2_000, n - i) }, () => null),
    );
  }
}

const server = await startEmbeddedPostgres({ durable: true });
const admin = new pg.Pool({ connectionString: server.url, max: 2 });
admin.on('error', () => undefined);
const dbs: Db[] = [];
try {
  const empty = await open(server.url, admin, 'history_empty');
  const full = await open(server.url, admin, 'history_full');
  dbs.push(empty, full);
  let t0 = performance.now();
  await fillHistory(full, historyRows);
  console.log(
    `history: ${historyRows.toLocaleString('en')} finished jobs in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  const perJob: Record<string, number[]> = { empty: [], full: [] };
  for (let round = 0; round < rounds; round++) {
    for (const [label, db] of [
      ['empty', empty],
      ['full', full],
    ] as const) {
      await enqueue(db, queued);
      await db.pool.query('ANALYZE cyclone_steps');
      const seconds = await drain(db, queued);
      perJob[label]!.push((seconds * 1e6) / queued);
    }
  }
  console.log('\nclaim + completion, µs a job (store calls on one connection, 250 a claim)');
  console.table({
    empty: {
      rounds: perJob.empty!.map((x) => x.toFixed(1)).join(' '),
      median: median(perJob.empty!).toFixed(1),
    },
    [`${historyRows.toLocaleString('en')} in history`]: {
      rounds: perJob.full!.map((x) => x.toFixed(1)).join(' '),
      median: median(perJob.full!).toFixed(1),
    },
  });
  console.log(
    `ratio (history / empty, medians): ${(median(perJob.full!) / median(perJob.empty!)).toFixed(2)}x`,
  );

  // A period of events to drop: a day ten days ahead, with runs that no longer exist.
  const future = Math.floor((Date.now() + 10 * DAY) / DAY) * DAY;
  const made = await full.store.maintainEventPartitions({ now: future, ahead: 0 });
  const partition = made.created.at(-1);
  if (!partition) throw new Error(`no period partition created: ${JSON.stringify(made)}`);
  t0 = performance.now();
  await full.pool.query(
    `INSERT INTO cyclone_events (run_id, type, from_state, to_state, trigger)
     SELECT ${idAt(future)}, 'step_failed', 'running', 'failed', 'fail'
     FROM generate_series(1, $1::int) g`,
    [periodEvents],
  );
  const size = await scalar(full.pool, `SELECT pg_total_relation_size($1::regclass) AS n`, [
    partition,
  ]);
  console.log(
    `\n${partition}: ${periodEvents.toLocaleString('en')} events, ${(size / 2 ** 20).toFixed(0)} MiB, written in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  // Claims and completions of single jobs beside the drop.
  await enqueue(full, 20_000);
  const probe = claimLoop(full.store, kind);
  // The periods after it exist already, so the timed pass only drops.
  await full.store.maintainEventPartitions({ now: future + DAY, ahead: 2 });
  await new Promise((r) => setTimeout(r, 2_000));
  const dropStart = performance.now();
  const pass = await full.store.maintainEventPartitions({ now: future + 2 * DAY, ahead: 0 });
  const dropEnd = performance.now();
  await new Promise((r) => setTimeout(r, 2_000));
  const latencies = await probe.stop();
  const during = latencies
    .filter((l) => l.at + l.ms >= dropStart && l.at <= dropEnd)
    .map((l) => l.ms);
  const before = latencies.filter((l) => l.at + l.ms < dropStart).map((l) => l.ms);
  console.log(
    `drop pass: ${(dropEnd - dropStart).toFixed(1)} ms, dropped ${JSON.stringify(pass.dropped)}, deferred ${JSON.stringify(pass.deferred)}`,
  );
  console.log(
    `claim + completion of one job: before the drop p50 ${quantile(before, 0.5).toFixed(2)} ms, p99 ${quantile(before, 0.99).toFixed(2)} ms (${before.length}); overlapping the drop: ${during.length}, the slowest ${Math.max(...during, 0).toFixed(2)} ms`,
  );
  const stillThere = await scalar(
    full.pool,
    `SELECT count(*) AS n FROM pg_class WHERE relname = $1`,
    [partition],
  );
  const dead = await scalar(
    full.pool,
    `SELECT coalesce(sum(n_dead_tup), 0) AS n FROM pg_stat_user_tables WHERE relname LIKE 'cyclone\\_events%'`,
  );
  console.log(`partition left: ${stillThere}; dead tuples in the events' partitions: ${dead}`);
} finally {
  for (const db of dbs) {
    await db.client.close().catch(() => undefined);
    await db.pool.end().catch(() => undefined);
  }
  await admin.end();
  await server.stop();
}
