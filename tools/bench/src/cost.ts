/**
 * What each system costs the database per job, independent of how busy the machine is: one
 * embedded PostgreSQL (durable settings, pg_stat_statements), each system in a database of its own,
 * N jobs enqueued in bulk and drained by one worker. Per job it prints the statements' execution
 * time, the WAL bytes written, and the heap tuples and index entries written (from the WAL's
 * records). Time is still measured on a shared machine; WAL bytes and tuples are not noisy.
 *
 *   node --conditions=@cyclone/source --import tsx tools/bench/src/cost.ts 10000 50
 *
 * A fourth argument, `chain` or `diamond`, drains runs of that workflow shape instead (Cyclone
 * only): N is then the number of steps (N / steps per run runs), and the figures are per step.
 */
import pg from 'pg';
import { startEmbeddedPostgres } from '@cyclone/test-db/embedded';
import { databaseUrl, quoteIdent, sleep } from './shared/db.js';
import { createAdapter } from './systems/index.js';
import { stepsPerRun, type SystemName, type WorkflowShape } from './shared/types.js';

const n = Number(process.argv[2] ?? 10_000);
const concurrency = Number(process.argv[3] ?? 50);
const systems = (process.argv[4] ?? 'cyclone,graphile-worker').split(',') as SystemName[];
const shape = process.argv[5] as WorkflowShape | undefined;
if (shape !== undefined && !(shape in stepsPerRun)) {
  throw new Error(`shape: expected chain or diamond, got ${shape}`);
}
const runs = shape ? Math.ceil(n / stepsPerRun[shape]) : n;

/** Per-job figures of one phase (enqueue or drain) of one system. */
interface PhaseCost {
  statementMs: number;
  /** Shared buffers the statements touched (hit or read): a CPU proxy that is not noisy. */
  buffers: number;
  walBytes: number;
  inserted: number;
  updated: number;
  hot: number;
  deleted: number;
  /** B-tree entries written (leaf inserts and splits). */
  indexEntries: number;
  top: string;
  /** The costliest statements, each per job. */
  statements: Record<string, string | number>[];
}

const server = await startEmbeddedPostgres({
  durable: true,
  settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' },
});
try {
  const admin = new pg.Pool({ connectionString: server.url, max: 2 });
  admin.on('error', () => undefined);
  const table: Record<string, string | number>[] = [];
  const statements: Record<string, string | number>[] = [];
  for (const system of systems) {
    const dbName = `cyclone_cost_${system.replace(/-/g, '_')}`;
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(dbName)}`);
    await admin.query(`CREATE DATABASE ${quoteIdent(dbName)}`);
    const url = databaseUrl(server.url, dbName);
    const db = new pg.Pool({ connectionString: url, max: 2 });
    db.on('error', () => undefined);
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    const adapter = await createAdapter(system, url, 10);
    await adapter.setup();
    const count = shape
      ? () => adapter.countWorkflowsCompleted(shape)
      : () => adapter.countCompleted();
    const enqueue = await measure(db, () =>
      shape ? adapter.submitWorkflows(shape, runs) : adapter.bulkEnqueue(n),
    );
    const drain = await measure(db, async () => {
      const before = await count();
      await adapter.startWorker({ concurrency, config: 'fast', ...(shape ? { shape } : {}) });
      while ((await count()) - before < runs) await sleep(50);
      await adapter.stopWorker();
    });
    for (const row of drain.statements) statements.push({ system, ...row });
    for (const [phase, cost] of [
      ['enqueue', enqueue],
      ['drain', drain],
    ] as const) {
      table.push({
        system,
        phase,
        'statement ms/job': cost.statementMs.toFixed(3),
        'buffers/job': cost.buffers.toFixed(1),
        'WAL bytes/job': Math.round(cost.walBytes),
        'ins/job': cost.inserted.toFixed(2),
        'upd/job': cost.updated.toFixed(2),
        'hot/job': cost.hot.toFixed(2),
        'del/job': cost.deleted.toFixed(2),
        'index entries/job': cost.indexEntries.toFixed(2),
        'costliest statement': cost.top,
      });
    }
    await adapter.close();
    await db.end();
  }
  console.log(
    shape
      ? `${runs} runs of the ${shape} (${runs * stepsPerRun[shape]} steps), concurrency ${concurrency}, figures per step`
      : `${n} jobs, concurrency ${concurrency}, figures per job`,
  );
  console.table(table);
  console.log('costliest statements of the drain');
  console.table(statements);
  await admin.end();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await server.stop();
}

/**
 * Runs `phase` between two readings of the statement statistics and the WAL position. The server
 * holds nothing else, so the WAL between the two positions is the system's (autovacuum aside):
 * `pg_walinspect` counts its records by type.
 */
async function measure(db: pg.Pool, phase: () => Promise<void>): Promise<PhaseCost> {
  await db.query('SELECT pg_stat_statements_reset()');
  const start = await lsn(db);
  await phase();
  const end = await lsn(db);
  const { rows } = await db.query<{ ms: number; buffers: string; top: string }>(
    `SELECT sum(total_exec_time)::float AS ms, sum(shared_blks_hit + shared_blks_read)::text AS buffers,
            (SELECT regexp_replace(left(query, 50), '\\s+', ' ', 'g') FROM pg_stat_statements
             WHERE dbid = d.oid ORDER BY total_exec_time DESC LIMIT 1) AS top
     FROM pg_stat_statements s, pg_database d
     WHERE d.datname = current_database() AND s.dbid = d.oid
       AND s.query NOT LIKE '%pg_stat%' AND s.query NOT LIKE '%pg_get_wal%' GROUP BY d.oid`,
  );
  const statements = await db.query<Record<string, string | number>>(
    `SELECT regexp_replace(left(query, 40), '\\s+', ' ', 'g') AS statement, calls,
            round(s.rows::numeric / greatest(calls, 1), 1)::float AS "rows/call",
            round((total_exec_time / $1::float8)::numeric, 4)::float AS "ms/job",
            round(((shared_blks_hit + shared_blks_read) / $1::float8)::numeric, 1)::float AS "buffers/job",
            round((wal_bytes / $1::float8)::numeric)::float AS "WAL bytes/job"
     FROM pg_stat_statements s, pg_database d
     WHERE d.datname = current_database() AND s.dbid = d.oid
       AND s.query NOT LIKE '%pg_stat%' AND s.query NOT LIKE '%pg_get_wal%'
     ORDER BY total_exec_time DESC LIMIT 4`,
    [n],
  );
  const wal = await db.query<{ kind: string; n: string; bytes: string }>(
    `SELECT split_part("resource_manager/record_type", '/', 1) || '/' ||
            split_part(split_part("resource_manager/record_type", '/', 2), '+', 1) AS kind,
            sum(count)::text AS n, sum(combined_size)::text AS bytes
     FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true) GROUP BY 1`,
    [start, end],
  );
  const count = (kind: string) =>
    wal.rows.filter((r) => r.kind === kind).reduce((sum, r) => sum + Number(r.n), 0) / n;
  return {
    statementMs: rows[0]!.ms / n,
    buffers: Number(rows[0]!.buffers) / n,
    walBytes: wal.rows.reduce((sum, r) => sum + Number(r.bytes), 0) / n,
    inserted: count('Heap/INSERT') + count('Heap2/MULTI_INSERT'),
    updated: count('Heap/UPDATE') + count('Heap/HOT_UPDATE'),
    hot: count('Heap/HOT_UPDATE'),
    deleted: count('Heap/DELETE'),
    indexEntries:
      count('Btree/INSERT_LEAF') +
      count('Btree/INSERT_UPPER') +
      count('Btree/SPLIT_L') +
      count('Btree/SPLIT_R'),
    top: rows[0]!.top,
    statements: statements.rows,
  };
}

async function lsn(db: pg.Pool): Promise<string> {
  const { rows } = await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  return rows[0]!.lsn;
}
