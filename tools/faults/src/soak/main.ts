/**
 * `npm run soak`: a long run at a fixed rate through a held snapshot and a burst, printing a line
 * a minute and judging the pass criteria at the end (exit 1 when one fails). See
 * docs/reliability.md, "The soak".
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { judge, type Verdict } from './criteria.js';
import { prepareDatabase, vacuumSettings } from './database.js';
import { mb, ms } from './figures.js';
import { parseSoakOptions, SoakUsage, SoakUsageError } from './options.js';
import { runSoak, type SoakResult } from './soak.js';
import { WorkerPool } from './worker-pool.js';

/** The figures of every phase, one line each. */
function printPhases(result: SoakResult): void {
  console.log(
    '[soak] phase        s  offered/s done/s  wait p50/p99     claim p50/p99    tables (heap+idx)      dead  autovacuums',
  );
  for (const p of result.phases) {
    console.log(
      `[soak] ${p.phase.padEnd(11)} ${String(p.seconds).padStart(4)} ${String(p.offeredPerS).padStart(8)} ${String(
        p.completedPerS,
      ).padStart(
        7,
      )}  ${`${ms(p.waitP50Ms)}/${ms(p.waitP99Ms)}`.padEnd(15)} ${`${ms(p.claimP50Ms)}/${ms(
        p.claimP99Ms,
      )}`.padEnd(
        16,
      )} ${`${mb(p.totalBytes)} (${mb(p.heapBytes)}+${mb(p.indexBytes)})`.padEnd(22)} ${String(
        p.dead,
      ).padStart(6)} ${p.autovacuums}`,
    );
  }
}

/** Prints each verdict; whether all passed. */
function printVerdicts(verdicts: readonly Verdict[]): boolean {
  for (const v of verdicts) {
    console.log(`[soak] ${v.passed ? 'PASS' : 'FAIL'} ${v.criterion}: ${v.measured}`);
  }
  return verdicts.every((v) => v.passed);
}

/** `--judge FILE`: the figures of an earlier run, judged by the criteria as they are now. */
function judgeFile(file: string): number {
  const { result } = JSON.parse(readFileSync(file, 'utf8')) as { result: SoakResult };
  printPhases(result);
  const passed = printVerdicts(judge(result));
  console.log(`[soak] ${passed ? 'passed' : 'FAILED'} (figures of ${file})`);
  return passed ? 0 : 1;
}

async function main(): Promise<number> {
  let options;
  try {
    options = parseSoakOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof SoakUsageError)) throw error;
    console.error(`${error.message}\n${SoakUsage}`);
    return 2;
  }
  if (options.judge !== undefined) return judgeFile(options.judge);
  const began = Date.now();
  // The worker processes load their code while the database is made.
  const workers = new WorkerPool();
  workers.spawn(options.workers, options.concurrency);
  let database;
  try {
    database = await prepareDatabase(options);
  } catch (error) {
    await workers.stop();
    throw error;
  }
  const databaseS = Math.round((Date.now() - began) / 100) / 10;
  try {
    const settingsPool = new pg.Pool({ connectionString: database.url, max: 1 });
    const server = await vacuumSettings(settingsPool);
    await settingsPool.end();
    const retentionSeconds = options.retentionSeconds ?? Math.round(options.minutes * 6);
    console.log(
      `[soak] ${options.minutes} min, ${options.workers} workers x ${options.concurrency}, retention ${retentionSeconds} s; server ${Object.entries(
        server,
      )
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    );
    if (server.autovacuum === 'off') {
      console.log(
        "[soak] warning: autovacuum is off on this server; dead tuples pile up whatever Cyclone does (run without --database-url for a cluster of the soak's own)",
      );
    }
    const startedAt = new Date();
    const result = await runSoak(
      { url: database.url, minutes: options.minutes, rate: options.rate, retentionSeconds },
      workers,
    );
    printPhases(result);
    const { timings } = result;
    console.log(
      `[soak] submitted ${result.submitted}; ${result.bytesPerKeptRun} bytes per run kept at the end; seconds: database ${databaseS}, processes ${timings.start}, calibration ${timings.calibration}, phases ${timings.phases}, drain ${timings.drain}`,
    );
    const verdicts = judge(result);
    const passed = printVerdicts(verdicts);
    mkdirSync(options.out, { recursive: true });
    const file = path.join(
      options.out,
      `soak-${options.minutes}m-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`,
    );
    writeFileSync(
      file,
      `${JSON.stringify({ startedAt, options: { ...options, retentionSeconds }, server, result, verdicts, passed }, null, 2)}\n`,
    );
    console.log(`[soak] ${passed ? 'passed' : 'FAILED'}; figures in ${file}`);
    return passed ? 0 : 1;
  } finally {
    await workers.stop();
    await database.release().catch((error: unknown) => console.error('[soak] drop failed', error));
  }
}

process.exitCode = await main().catch((error: unknown) => {
  console.error('[soak] error', error);
  return 1;
});
