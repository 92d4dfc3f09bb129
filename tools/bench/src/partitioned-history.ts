/**
 * Runs and steps partitioned by their run's period, in place (decisions 347-352), measured against
 * today's unpartitioned tables on the same server. Four databases: today's layout ("flat") and the
 * partitioned one ("period"), each empty and holding N finished jobs. The period layout is made
 * from a migrated database by this script: `cyclone_runs` and `cyclone_steps` become tables
 * range-partitioned on `id`, a UTC day a partition plus a default one, as events are (decision
 * 320); a job's step id is its run's id, so a step's id carries its run's period. The unique
 * indexes a partitioned table cannot keep become plain ones (the design moves them, decision 348);
 * nothing else of the schema changes, and the store's own claim and completion run unchanged
 * against both layouts, through the parents' names.
 *
 * 1. Claim and completion of Q queued jobs, 250 a claim, one after the other on one connection,
 *    the four databases taking turns in every round: µs a job, medians, and their ratios to the
 *    empty flat database (the "within 10 % of an empty database").
 * 2. With a loop of single claims and completions beside it: the oldest period of the period
 *    layout (N / days finished jobs: its runs' and its steps' partitions) dropped, under a lock
 *    timeout as the event partitions are (decision 323); then, in the flat layout, the same jobs
 *    deleted with one statement a table, as row-by-row retention does today. The time of each,
 *    the claims' p50/p99 before and the slowest overlapping it, and the dead tuples left.
 *
 *   node --conditions=@cyclone/source --import tsx tools/bench/src/partitioned-history.ts \
 *     10000000 10 10000 3 [URL]
 *
 * (finished jobs in history, the days they span, queued jobs a drain, rounds; a server URL, else an
 * embedded PostgreSQL with durable settings). The machine is shared: ratios within one run are the
 * figures to read.
 */
import pg from 'pg';
import { Client } from '@cyclone/client';
import { migrate, PostgresStore } from '@cyclone/store-postgres';
import { startEmbeddedPostgres } from '@cyclone/test-db/embedded';
import { cloneRows, databaseUrl, quoteIdent, scalar, sleep } from './shared/db.js';
import { claimLoop, drainJobs, median, quantile } from './shared/drain.js';

const historyJobs = Number(process.argv[2] ?? 10_000_000);
const days = Number(process.argv[3] ?? 10);
const queued = Number(process.argv[4] ?? 10_000);
const rounds = Number(process.argv[5] ?? 3);
const given = process.argv[6];
const kind = 'history.noop';
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;

/** The smallest UUID version 7 of millisecond `ms`: a period's bound. */
function bound(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/** A partition's name for the period starting at `ms` (as events name theirs). */
function periodName(table: string, ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${table}_p${iso.slice(0, 10).replace(/-/g, '')}_${iso.slice(11, 19).replace(/:/g, '')}`;
}

/** SQL for the id of copy `g` made `spacing` ms apart from `from`: a UUID version 7 of that time. */
const idFrom = (from: number, spacing: number) =>
  `(lpad(to_hex(${from}::bigint + g * ${spacing}), 12, '0') || '7000' || lpad(to_hex(g), 16, '0'))::uuid`;

interface Db {
  readonly label: string;
  readonly layout: 'flat' | 'period';
  readonly pool: pg.Pool;
  readonly store: PostgresStore;
  /** A finished job and an available one (of another kind) whose rows are copied. */
  readonly finished: string;
  readonly available: string;
}

const TEMPLATE_KIND = 'history.template';

async function open(
  serverUrl: string,
  admin: pg.Pool,
  name: string,
  layout: Db['layout'],
): Promise<Db> {
  await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}`);
  await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
  const url = databaseUrl(serverUrl, name);
  await migrate({ connectionString: url });
  if (process.env.PHIST_EXPLAIN) {
    await admin.query(
      `ALTER DATABASE ${quoteIdent(name)} SET session_preload_libraries = 'auto_explain'`,
    );
    for (const [k, v] of Object.entries({
      log_min_duration: '20ms',
      log_analyze: 'on',
      log_buffers: 'on',
      log_nested_statements: 'on',
    }))
      await admin.query(`ALTER DATABASE ${quoteIdent(name)} SET auto_explain.${k} = '${v}'`);
  }
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  const store = new PostgresStore({ pool });
  const client = new Client({ pool });
  const [done, waiting] = await client.enqueueMany(TEMPLATE_KIND, [null, null]);
  const [claimed] = await store.claim({
    kinds: [TEMPLATE_KIND],
    limit: 1,
    workerId: 'bench',
    leaseMs: 60_000,
  });
  await store.complete([
    { stepId: claimed!.id, claimToken: claimed!.claimToken, outputJson: 'null' },
  ]);
  const finished = claimed!.id;
  const available = finished === done!.runId ? waiting!.runId : done!.runId;
  if (layout === 'period') await partitionByPeriod(pool);
  return { label: name, layout, pool, store, finished, available };
}

/**
 * Makes `cyclone_runs` and `cyclone_steps` range-partitioned on `id`: a partition a UTC day from
 * `days` days back to two days ahead, and a default one. Every index is kept; the two unique
 * indexes without the key become plain ones. The rows there are copied; the history view is made
 * again over the new tables.
 */
async function partitionByPeriod(pool: pg.Pool): Promise<void> {
  await remakeTables(pool, async (db) => {
    for (const table of ['cyclone_runs', 'cyclone_steps']) {
      const { rows: indexes } = await db.query<{ def: string; primary: boolean }>(
        `SELECT pg_get_indexdef(indexrelid) AS def, indisprimary AS primary
           FROM pg_index WHERE indrelid = $1::regclass`,
        [table],
      );
      const { rows: options } = await db.query<{ options: string[] | null }>(
        `SELECT reloptions AS options FROM pg_class WHERE oid = $1::regclass`,
        [table],
      );
      const storage = options[0]?.options ? ` WITH (${options[0].options.join(', ')})` : '';
      await db.query(`ALTER TABLE ${table} RENAME TO ${table}_flat`);
      await db.query(
        `CREATE TABLE ${table} (LIKE ${table}_flat INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
         PARTITION BY RANGE (id)`,
      );
      await db.query(`CREATE TABLE ${table}_default PARTITION OF ${table} DEFAULT${storage}`);
      for (let day = today - days * DAY; day <= today + 2 * DAY; day += DAY) {
        await db.query(
          `CREATE TABLE ${periodName(table, day)} PARTITION OF ${table}
           FOR VALUES FROM ('${bound(day)}') TO ('${bound(day + DAY)}')${storage}`,
        );
      }
      await db.query(`INSERT INTO ${table} SELECT * FROM ${table}_flat`);
      await db.query(`DROP TABLE ${table}_flat`);
      for (const index of indexes) {
        if (index.primary) {
          await db.query(`ALTER TABLE ${table} ADD PRIMARY KEY (id)`);
          continue;
        }
        await db.query(index.def.replace('CREATE UNIQUE INDEX', 'CREATE INDEX'));
      }
    }
  });
}

/**
 * Runs `change` in one transaction that has locked the steps and then the runs (the order a claim
 * takes them: the other order deadlocks with it) and dropped the history view, which names both;
 * makes the view again over whatever tables bear the names afterwards.
 */
async function remakeTables(
  pool: pg.Pool,
  change: (db: pg.PoolClient) => Promise<void>,
): Promise<void> {
  const db = await pool.connect();
  try {
    await db.query('BEGIN');
    await db.query(`SELECT set_config('lock_timeout', '2s', true)`);
    await db.query('LOCK TABLE cyclone_steps, cyclone_runs IN ACCESS EXCLUSIVE MODE');
    const view = await db.query<{ def: string }>(
      `SELECT pg_get_viewdef('cyclone_history'::regclass) AS def`,
    );
    await db.query('DROP VIEW cyclone_history');
    await change(db);
    await db.query(`CREATE VIEW cyclone_history AS ${view.rows[0]!.def}`);
    await db.query('COMMIT');
  } catch (error) {
    await db.query('ROLLBACK');
    throw error;
  } finally {
    db.release();
  }
}

/**
 * The migration for tables that hold rows: each table is renamed `<table>_initial` and attached as
 * the partition of every id below `upTo` to a new partitioned parent of the old name, with the
 * indexes the parent takes over from it (the two unique ones that lack the key stay on the initial
 * partition alone). A valid CHECK constraint that implies the bound spares the attach its scan.
 */
async function attachAsInitial(pool: pg.Pool, upTo: string): Promise<void> {
  await remakeTables(pool, async (db) => {
    for (const table of ['cyclone_runs', 'cyclone_steps']) {
      const { rows: indexes } = await db.query<{ name: string; def: string; unique: boolean }>(
        `SELECT c.relname AS name, pg_get_indexdef(indexrelid) AS def, indisunique AS unique
           FROM pg_index JOIN pg_class c ON c.oid = indexrelid WHERE indrelid = $1::regclass`,
        [table],
      );
      await db.query(`ALTER TABLE ${table} RENAME TO ${table}_initial`);
      await db.query(
        `CREATE TABLE ${table} (LIKE ${table}_initial INCLUDING DEFAULTS) PARTITION BY RANGE (id)`,
      );
      for (const index of indexes) {
        if (index.unique && !index.name.endsWith('_pkey')) continue;
        await db.query(`ALTER INDEX ${index.name} RENAME TO ${index.name}_initial`);
        if (index.name.endsWith('_pkey')) {
          await db.query(`ALTER TABLE ${table} ADD CONSTRAINT ${index.name} PRIMARY KEY (id)`);
        } else {
          // The parent has no partition yet: the index is its alone, and the attach adopts the
          // initial table's own, renamed above, instead of building one.
          await db.query(index.def);
        }
      }
      await db.query(
        `ALTER TABLE ${table} ATTACH PARTITION ${table}_initial FOR VALUES FROM (MINVALUE) TO ('${upTo}')`,
      );
    }
  });
}

/** Copies the template job `id`'s run and step `n` times as `kind` with the ids `idSql`. */
async function copyJob(db: Db, id: string, n: number, idSql: string, extra = {}): Promise<void> {
  for (const table of ['cyclone_runs', 'cyclone_steps']) {
    await cloneRows(db.pool, {
      schema: 'public',
      table,
      where: 'id = $1',
      whereParams: [id],
      n,
      overrides:
        table === 'cyclone_runs'
          ? { id: idSql, workflow: `'${kind}'` }
          : { id: idSql, run_id: idSql, kind: `'${kind}'`, ...extra },
      batch: 250_000,
    });
  }
}

/** `n` finished jobs a day over the `days` days before today, as retention would find them. */
async function fillHistory(db: Db, perDay: number): Promise<void> {
  const spacing = Math.max(1, Math.floor((DAY - 60_000) / perDay));
  for (let d = days; d >= 1; d--) {
    await copyJob(db, db.finished, perDay, idFrom(today - d * DAY, spacing));
  }
  await db.pool.query('VACUUM ANALYZE');
}

let enqueues = 0;
/** Puts `n` available jobs in the queue, ids of now (each call its own range). */
async function enqueue(db: Db, n: number): Promise<void> {
  const from = Date.now() + enqueues++ * 1_000_000;
  await copyJob(db, db.available, n, idFrom(from, 0), { scheduled_at: 'now()' });
}

/** Dead tuples in the runs' and steps' tables (their partitions included), as the statistics say. */
async function deadTuples(db: Db): Promise<number> {
  await sleep(1_000);
  await db.pool.query('SELECT pg_stat_clear_snapshot()');
  return scalar(
    db.pool,
    `SELECT coalesce(sum(n_dead_tup), 0) AS n FROM pg_stat_user_tables
      WHERE relname LIKE 'cyclone\\_runs%' OR relname LIKE 'cyclone\\_steps%'`,
  );
}

/**
 * Runs `work` while a loop claims and completes single jobs of `db`; prints its time and the
 * loop's latencies before it and overlapping it.
 */
async function beside(db: Db, what: string, work: () => Promise<string>): Promise<void> {
  await enqueue(db, 20_000);
  await db.pool.query('ANALYZE cyclone_steps');
  const probe = claimLoop(db.store, kind);
  await sleep(3_000);
  const start = performance.now();
  const said = await work();
  const end = performance.now();
  await sleep(2_000);
  const latencies = await probe.stop();
  const during = latencies.filter((l) => l.at + l.ms >= start && l.at <= end).map((l) => l.ms);
  const before = latencies.filter((l) => l.at + l.ms < start).map((l) => l.ms);
  console.log(
    `${what}: ${(end - start).toFixed(1)} ms ${said}\n` +
      `  claim + completion of one job: before p50 ${quantile(before, 0.5).toFixed(2)} ms, p99 ${quantile(before, 0.99).toFixed(2)} ms (${before.length});` +
      ` overlapping: ${during.length}, p99 ${quantile(during, 0.99).toFixed(2)} ms, slowest ${Math.max(...during, 0).toFixed(2)} ms`,
  );
}

const embedded = given
  ? undefined
  : await startEmbeddedPostgres({
      durable: true,
      settings: {
        shared_preload_libraries: 'pg_stat_statements',
        'pg_stat_statements.track_planning': 'on',
      },
    });
const serverUrl = given ?? embedded!.url;
const admin = new pg.Pool({ connectionString: serverUrl, max: 2 });
admin.on('error', () => undefined);
const dbs: Db[] = [];
try {
  const flatEmpty = await open(serverUrl, admin, 'phist_flat_empty', 'flat');
  const periodEmpty = await open(serverUrl, admin, 'phist_period_empty', 'period');
  const flatFull = await open(serverUrl, admin, 'phist_flat_full', 'flat');
  const periodFull = await open(serverUrl, admin, 'phist_period_full', 'period');
  dbs.push(flatEmpty, periodEmpty, flatFull, periodFull);
  // The same period databases through sessions that keep the generic plan of every statement,
  // as a role of their own, so that pg_stat_statements tells their statements apart.
  await admin.query(`DROP ROLE IF EXISTS phist_generic`);
  await admin.query(`CREATE ROLE phist_generic LOGIN SUPERUSER PASSWORD 'phist'`);
  for (const db of [periodEmpty, periodFull]) {
    const url = new URL(databaseUrl(serverUrl, db.label));
    url.username = 'phist_generic';
    url.password = 'phist';
    const pool = new pg.Pool({
      connectionString: url.toString(),
      max: 4,
      options: '-c plan_cache_mode=force_generic_plan',
    });
    pool.on('error', () => undefined);
    dbs.push({
      ...db,
      label: `${db.label} (generic plans)`,
      pool,
      store: new PostgresStore({ pool }),
    });
  }
  const perDay = Math.floor(historyJobs / days);
  for (const db of [periodFull, flatFull]) {
    const t0 = performance.now();
    await fillHistory(db, perDay);
    console.log(
      `${db.label}: ${(perDay * days).toLocaleString('en')} finished jobs over ${days} days in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
  }
  const size = (db: Db) =>
    scalar(
      db.pool,
      `SELECT sum(pg_total_relation_size(c.oid)) AS n FROM pg_class c
        WHERE c.relkind = 'r' AND (c.relname LIKE 'cyclone\\_runs%' OR c.relname LIKE 'cyclone\\_steps%')`,
    );
  console.log(
    `runs and steps, heap and indexes: flat ${((await size(flatFull)) / 2 ** 30).toFixed(2)} GiB, period ${((await size(periodFull)) / 2 ** 30).toFixed(2)} GiB`,
  );

  // Where the time goes, when the server can say: planning and execution of each statement.
  let statements = true;
  for (const db of dbs.slice(0, 4)) {
    statements &&= await db.pool
      .query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
      .then(() => db.pool.query('SELECT pg_stat_statements_reset()'))
      .then(() => true)
      .catch(() => false);
  }
  const perJob = new Map<Db, number[]>(dbs.map((db) => [db, []]));
  for (let round = 0; round < rounds; round++) {
    for (const db of dbs) {
      await enqueue(db, queued);
      await db.pool.query('ANALYZE cyclone_steps');
      const seconds = await drainJobs(db.store, kind, queued, db.label);
      perJob.get(db)!.push((seconds * 1e6) / queued);
    }
  }
  const base = median(perJob.get(flatEmpty)!);
  console.log('\nclaim + completion, µs a job (store calls on one connection, 250 a claim)');
  console.table(
    Object.fromEntries(
      dbs.map((db) => [
        db.label,
        {
          rounds: perJob
            .get(db)!
            .map((x) => x.toFixed(1))
            .join(' '),
          median: median(perJob.get(db)!).toFixed(1),
          'to flat empty': `${(median(perJob.get(db)!) / base).toFixed(2)}x`,
        },
      ]),
    ),
  );

  if (statements) {
    const rows: Record<string, Record<string, string>> = {};
    for (const db of dbs.slice(0, 4)) {
      const { rows: found } = await db.pool.query<{
        statement: string;
        sessions: string;
        buffers: string;
        calls: string;
        plans: string;
        plan_ms: number;
        exec_ms: number;
      }>(
        `SELECT CASE WHEN query LIKE '%WITH limited AS%' THEN 'claim' ELSE 'completion' END AS statement,
                CASE WHEN userid = 'phist_generic'::regrole THEN ' (generic plans)' ELSE '' END AS sessions,
                calls, plans, total_plan_time / calls AS plan_ms, total_exec_time / calls AS exec_ms,
                (shared_blks_hit + shared_blks_read) / calls AS buffers
           FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND (query LIKE '%WITH limited AS%' OR query LIKE '%WITH input AS%')
          ORDER BY 2, 1`,
      );
      for (const r of found) {
        rows[`${db.label}${r.sessions} ${r.statement}`] = {
          buffers: Number(r.buffers).toFixed(0),
          calls: r.calls,
          plans: r.plans,
          'plan ms': r.plan_ms.toFixed(3),
          'execution ms': r.exec_ms.toFixed(3),
        };
      }
    }
    console.log('\nthe statements over all rounds (pg_stat_statements), per call of 250 jobs');
    console.table(rows);
  }

  // The oldest period: dropped from the period layout, deleted from the flat one.
  const oldest = today - days * DAY;
  const [lo, hi] = [bound(oldest), bound(oldest + DAY)];
  const deadBefore = await deadTuples(periodFull);
  // The claims beside the drop keep their generic plans, as the design has them (decision 350).
  const periodFullGeneric = dbs.find((db) => db.label === `${periodFull.label} (generic plans)`)!;
  await beside(
    periodFullGeneric,
    `drop of ${perDay.toLocaleString('en')} finished jobs' partitions`,
    async () => {
      const db = await periodFull.pool.connect();
      const each: string[] = [];
      try {
        for (const table of ['cyclone_steps', 'cyclone_runs']) {
          const size = await scalar(db, `SELECT pg_total_relation_size($1::regclass) AS n`, [
            periodName(table, oldest),
          ]);
          const t0 = performance.now();
          await db.query('BEGIN');
          await db.query(`SELECT set_config('lock_timeout', '200ms', true)`);
          await db.query(`DROP TABLE ${periodName(table, oldest)}`);
          await db.query('COMMIT');
          each.push(
            `${table} ${(size / 2 ** 20).toFixed(0)} MiB in ${(performance.now() - t0).toFixed(1)} ms`,
          );
        }
      } finally {
        db.release();
      }
      return `(${each.join(', ')})`;
    },
  );
  console.log(
    `  dead tuples in runs and steps: before ${deadBefore}, after ${await deadTuples(periodFull)}`,
  );
  await beside(
    flatFull,
    `delete of the same ${perDay.toLocaleString('en')} jobs, flat`,
    async () => {
      const steps = await flatFull.pool.query(
        `DELETE FROM cyclone_steps WHERE id >= $1 AND id < $2`,
        [lo, hi],
      );
      const runs = await flatFull.pool.query(
        `DELETE FROM cyclone_runs WHERE id >= $1 AND id < $2`,
        [lo, hi],
      );
      return `(${steps.rowCount} steps, ${runs.rowCount} runs)`;
    },
  );
  console.log(`  dead tuples in runs and steps after: ${await deadTuples(flatFull)}`);

  // The migration of the flat tables with their rows: each becomes the partition of every id
  // below a bound, checked beforehand by a constraint validated online, then attached.
  const initialBound = bound(today + 3 * DAY);
  await beside(
    flatFull,
    'online check of the bound (VALIDATE CONSTRAINT, both tables)',
    async () => {
      for (const table of ['cyclone_steps', 'cyclone_runs']) {
        await flatFull.pool.query(
          `ALTER TABLE ${table} ADD CONSTRAINT ${table}_initial_bound CHECK (id < '${initialBound}') NOT VALID`,
        );
        await flatFull.pool.query(
          `ALTER TABLE ${table} VALIDATE CONSTRAINT ${table}_initial_bound`,
        );
      }
      return '';
    },
  );
  await beside(flatFull, 'migration transaction (rename, parents, attach)', async () => {
    await attachAsInitial(flatFull.pool, initialBound);
    const parts = await scalar(
      flatFull.pool,
      `SELECT count(*) AS n FROM pg_inherits WHERE inhparent IN ('cyclone_runs'::regclass, 'cyclone_steps'::regclass)`,
    );
    return `(partitions now: ${parts})`;
  });
} finally {
  for (const db of dbs) await db.pool.end().catch(() => undefined);
  for (const db of new Set(dbs.map((d) => d.label.split(' ')[0]!)))
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(db)}`).catch(() => undefined);
  await admin.query('DROP ROLE IF EXISTS phist_generic').catch(() => undefined);
  await admin.end();
  await embedded?.stop();
}
