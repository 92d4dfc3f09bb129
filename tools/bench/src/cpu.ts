/**
 * CPU per job, on each side: a drain of N jobs by each system's worker (its fastest
 * configuration), with the CPU time of the worker process during the drain (user + system,
 * from the runner) and of the PostgreSQL server over the same drain (its processes' times in
 * /proc, the exited backends' included through the postmaster). On a machine whose cores the
 * worker and the server share, the sum is what bounds the rate. Linux only; the server must run
 * on this machine (the embedded one, or a local one given by URL). Cyclone runs twice: as it
 * is, and with `pooler: 'transaction'` on the same direct connection (every statement unnamed,
 * LISTEN on a pool of its own), which isolates what re-planning each statement costs.
 *
 *   node --conditions=@cyclone/source --import tsx tools/bench/src/cpu.ts 40000 [URL]
 */
import pg from 'pg';
import { startEmbeddedPostgres } from '@cyclone/test-db/embedded';
import { databaseUrl, quoteIdent } from './shared/db.js';
import { runRunner } from './run-runner.js';
import { localPostmaster, serverCpuSeconds } from './shared/server-cpu.js';
import type { SystemName } from './shared/types.js';

const n = Number(process.argv[2] ?? 40_000);
const given = process.argv[3];
/** System, configuration, and whether it runs with `pooler: 'transaction'` (Cyclone only). */
const systems: [SystemName, string, boolean][] = [
  ['cyclone', 'default', false],
  ['cyclone', 'default', true],
  ['graphile-worker', 'fast', false],
];
/** A runner task; a drain takes minutes at most. */
const run = (args: string[]) => runRunner(args, 10 * 60_000);

const embedded = given ? undefined : await startEmbeddedPostgres({ durable: true });
const serverUrl = given ?? embedded!.url;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
try {
  const postmaster = await localPostmaster(admin);
  if (postmaster === undefined) throw new Error('the server must run on this machine (Linux)');
  const rows = [];
  for (const [system, config, unnamed] of systems) {
    const name = `cyclone_cpu_${system.replace(/-/g, '_')}`;
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}`);
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    const url = databaseUrl(serverUrl, name);
    const common = ['--url', url, '--concurrency', '50', '--config', config];
    if (unnamed) common.push('--pooler', 'transaction', '--listen-url', url);
    await run([system, 'prepare', String(n), ...common]);
    const before = serverCpuSeconds(postmaster);
    const drained = await run([system, 'drain', String(n), ...common]);
    const server = serverCpuSeconds(postmaster) - before;
    const node = Number(drained.extra?.cpuMs ?? Number.NaN) / 1000;
    await admin.query(`DROP DATABASE ${quoteIdent(name)}`);
    rows.push({
      system: `${system} (${config}${unnamed ? ", pooler: 'transaction'" : ''})`,
      'jobs/s': Math.round(drained.value ?? 0),
      'worker µs/job': Math.round((node * 1e6) / n),
      'server µs/job': Math.round((server * 1e6) / n),
      'total µs/job': Math.round(((node + server) * 1e6) / n),
    });
  }
  console.log(`${n} jobs, concurrency 50; CPU time per job (user + system)`);
  console.table(rows);
} finally {
  await admin.end();
  await embedded?.stop();
}
