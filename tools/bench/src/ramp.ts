/**
 * A drain timed job by job: when the worker's start resolved, and when the 1st, 100th, 500th,
 * 1,000th, 2,000th, 5,000th and last of N queued jobs started, for Cyclone and graphile-worker's
 * fast configuration (concurrency 50). Shows how much of a short drain is the ramp-up (connecting,
 * the first claims on cold backends) and what the steady state runs at.
 *
 *   node --conditions=@cyclone/source --import tsx tools/bench/src/ramp.ts 10000 [URL [rounds]]
 *
 * Without a URL it runs on an embedded server (durable settings).
 */
import pg from 'pg';
import { startEmbeddedPostgres } from '@cyclone/test-db/embedded';
import { databaseUrl, quoteIdent } from './shared/db.js';
import { runRunner } from './run-runner.js';
import { createAdapter } from './systems/index.js';
import type { ConfigName, SystemName } from './shared/types.js';

const n = Number(process.argv[2] ?? 10_000);
const given = process.argv[3] || undefined; // "" too: the embedded server
const rounds = Number(process.argv[4] ?? 3);
const systems: [SystemName, ConfigName][] = [
  ['cyclone', 'default'],
  ['graphile-worker', 'fast'],
];
if (!(n >= 2_000)) throw new Error(`ramp.ts: N must be at least 2000, got "${process.argv[2]}"`);
const marks = [...new Set([1, 100, 500, 1_000, 2_000, 5_000, n])].filter((m) => m <= n);

const embedded = given ? undefined : await startEmbeddedPostgres({ durable: true });
const serverUrl = given ?? embedded!.url;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
const rows: Record<string, string | number>[] = [];
try {
  for (let round = 1; round <= rounds; round++) {
    for (const [system, config] of systems) {
      const name = `cyclone_ramp_${system.replace(/-/g, '_')}`;
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}`);
      await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
      const url = databaseUrl(serverUrl, name);
      await runRunner([system, 'prepare', String(n), '--url', url], 10 * 60_000);
      const adapter = await createAdapter(system, url, 10, {});
      const at = new Map<number, number>();
      let started = 0;
      let finished!: () => void;
      const allStarted = new Promise<void>((resolve) => (finished = resolve));
      const t0 = performance.now();
      await adapter.startWorker({
        concurrency: 50,
        config,
        onJobStart: () => {
          started++;
          if (marks.includes(started)) at.set(started, performance.now() - t0);
          if (started === n) finished();
        },
      });
      const startMs = performance.now() - t0;
      // A job that never starts (a broken build, a stuck worker) fails the run instead of hanging.
      let deadline: NodeJS.Timeout | undefined;
      await Promise.race([
        allStarted,
        new Promise<never>((_, reject) => {
          deadline = setTimeout(
            () => reject(new Error(`ramp.ts: ${system}: ${started} of ${n} jobs started in 5 min`)),
            5 * 60_000,
          );
        }),
      ]).finally(() => clearTimeout(deadline));
      await adapter.stopWorker();
      await adapter.close();
      await admin.query(`DROP DATABASE ${quoteIdent(name)}`);
      const row: Record<string, string | number> = { round, system: `${system} (${config})` };
      row['start ms'] = Math.round(startMs);
      for (const m of marks) row[`#${m} ms`] = Math.round(at.get(m) ?? Number.NaN);
      const steady = (at.get(n)! - at.get(1_000)!) / (n - 1_000);
      row['µs/job after #1000'] = Math.round(steady * 1000);
      rows.push(row);
    }
  }
  console.log(
    `${n} queued jobs, concurrency 50: ms from the worker's start to the k-th job's start`,
  );
  console.table(rows);
} finally {
  await admin.end();
  await embedded?.stop();
}
