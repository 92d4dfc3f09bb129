/**
 * What an idempotency key costs `store.submit` and `store.enqueue` (decision 413): one round, on a
 * fresh database, of these phases, each on one connection, one call after another:
 *
 * - `single-keyed`: N submits of one run (a workflow of three nodes), each with a fresh key;
 * - `single-taken`: the same N keys submitted again, each answered with the run that holds it;
 * - `single-unkeyed`: N submits of one run without a key (what a key adds is measured against it);
 * - `batch-keyed` / `batch-unkeyed`: 10 N runs in submits of B runs, with fresh keys or none;
 * - `jobs-keyed` / `jobs-unkeyed`: 10 N jobs in `enqueue`s of B (the lean insert), with a suffixed
 *   key or none.
 *
 * Each phase reports µs a run (wall clock) and WAL bytes a run (the server's WAL position before and
 * after; nothing else writes to the server). A warm-up of every phase runs first, untimed. One
 * round a process, printed as one JSON line: run it several times, alternating with the code it is
 * compared with, and compare medians.
 *
 *   node --conditions=@cyclone/source --import tsx tools/bench/src/submit-keys.ts [N [B [URL]]]
 *
 * Without a URL it runs on an embedded server of its own (durable settings).
 */
import pg from 'pg';
import { workflow } from '@cyclone/core';
import { migrate, newJobs, PostgresStore, runOfDefinition } from '@cyclone/store-postgres';
import { startEmbeddedPostgres } from '@cyclone/test-db/embedded';
import { databaseUrl, quoteIdent, scalar } from './shared/db.js';

const n = Number(process.argv[2] ?? 2_000);
const batch = Number(process.argv[3] ?? 100);
const given = process.argv[4] || undefined;
if (!(n >= batch && batch >= 1)) {
  throw new Error(`submit-keys.ts: N must be at least B, got N=${n}, B=${batch}`);
}

const definition = workflow('bench-keys')
  .task('a', 'bench.a')
  .task('b', 'bench.b', { dependsOn: ['a'] })
  .task('c', 'bench.c', { dependsOn: ['b'] })
  .build();

const embedded = given ? undefined : await startEmbeddedPostgres({ durable: true });
const serverUrl = given ?? embedded!.url;
const name = `cyclone_bench_keys_${process.pid}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
const pool = new pg.Pool({ connectionString: databaseUrl(serverUrl, name), max: 1 });
pool.on('error', () => undefined);

/** A phase: how many runs it submits, and how (`prefix` keeps its keys apart from the warm-up's). */
type Phase = [runs: number, submit: (prefix: string) => Promise<void>];

const keysOf = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

try {
  await migrate({ pool });
  const store = new PostgresStore({ pool });
  const singles = async (keys: readonly (string | null)[], created = true) => {
    for (const key of keys) {
      const [submitted] = await store.submit([
        runOfDefinition(definition, '{"v":1}', key === null ? {} : { idempotencyKey: key }),
      ]);
      if (submitted!.created !== created) throw new Error(`key ${key}: not created ${created}`);
    }
  };
  const batches = async (keys: readonly (string | null)[]) => {
    for (let start = 0; start < keys.length; start += batch) {
      await store.submit(
        keys
          .slice(start, start + batch)
          .map((key) =>
            runOfDefinition(definition, '{"v":1}', key === null ? {} : { idempotencyKey: key }),
          ),
      );
    }
  };
  const jobs = async (prefix: string | null, count: number) => {
    for (let start = 0; start < count; start += batch) {
      const args = Array.from({ length: Math.min(batch, count - start) }, () => '{"v":1}');
      await store.enqueue(
        newJobs(
          'bench.job',
          args,
          prefix === null ? {} : { idempotencyKey: `${prefix}-${start}`, suffixKeys: true },
        ),
      );
    }
  };
  // Batched phases insert ten times the runs, so that each takes long enough to time.
  const many = n * 10;
  const phases: Record<string, Phase> = {
    'single-keyed': [n, (p) => singles(keysOf(`single-${p}`, n))],
    'single-taken': [n, (p) => singles(keysOf(`single-${p}`, n), false)],
    'single-unkeyed': [n, () => singles(Array.from({ length: n }, () => null))],
    'batch-keyed': [many, (p) => batches(keysOf(`batch-${p}`, many))],
    'batch-unkeyed': [many, () => batches(Array.from({ length: many }, () => null))],
    'jobs-keyed': [many, (p) => jobs(`jobs-${p}`, many)],
    'jobs-unkeyed': [many, () => jobs(null, many)],
  };
  await runPhases(phases, 'warm');
  await pool.query('VACUUM ANALYZE');
  const result = await runPhases(phases, 'timed');
  console.log(JSON.stringify({ n, batch, ...result }));
} finally {
  await pool.end();
  await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
  await admin.end();
  await embedded?.stop();
}

async function runPhases(
  phases: Record<string, Phase>,
  prefix: string,
): Promise<Record<string, { us: number; walBytes: number }>> {
  const out: Record<string, { us: number; walBytes: number }> = {};
  for (const [phase, [runs, submit]] of Object.entries(phases)) {
    const lsn = await walPosition();
    const t0 = performance.now();
    await submit(prefix);
    const us = ((performance.now() - t0) * 1000) / runs;
    const walBytes =
      (await scalar(admin, 'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS n', [lsn])) / runs;
    out[phase] = { us: Math.round(us), walBytes: Math.round(walBytes) };
  }
  return out;
}

async function walPosition(): Promise<string> {
  const { rows } = await admin.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  return rows[0]!.lsn;
}
