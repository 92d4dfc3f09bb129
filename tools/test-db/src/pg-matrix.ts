/**
 * `npm run test:pg-matrix`: the harness's, the store's and a part of the engine's integration
 * tests on every embedded PostgreSQL the harness has (`embeddedPostgresPackages`: 14 and 18), as
 * on a machine with nothing set up: no `CYCLONE_TEST_DATABASE_URL`, the embedded server with its
 * password authentication. CI runs it after `npm test`, which uses the machine's own server.
 *
 * ```sh
 * npm run test:pg-matrix          # every embedded version
 * npm run test:pg-matrix -- 14    # one
 * ```
 *
 * Each package's vitest writes `reports/vitest/pg<major>-<package folder>.json` (CI sums every
 * report there). Prints the server version each run used, a summary, and exits 1 when a test
 * failed or a run did not finish.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { repoRoot } from './paths.js';
import {
  defaultEmbeddedMajor,
  embeddedPostgresPackage,
  embeddedPostgresPackages,
} from './versions.js';

/** One package's tests in the matrix: all of them, or the files listed. */
interface Suite {
  readonly folder: string;
  readonly files?: readonly string[];
}

/**
 * What the matrix runs on each version. The store holds every statement Cyclone sends, so all of
 * its tests run. The worker's run a step through each node kind and each state change (claim,
 * complete, retry, lease, fan-out, child, waits, containment, discard); its slow operator, fault
 * and prefetch files, which add timing more than SQL, run on the machine's server only, as do the
 * client's and the scheduler's, whose statements are the store's (decision 165).
 */
const suites: readonly Suite[] = [
  { folder: 'tools/test-db' },
  { folder: 'packages/store-postgres' },
  {
    folder: 'packages/worker',
    files: [
      'test/smoke.int.test.ts',
      'test/transitions/submit.int.test.ts',
      'test/transitions/claim-complete.int.test.ts',
      'test/transitions/retry.int.test.ts',
      'test/transitions/lease.int.test.ts',
      'test/transitions/fan-out.int.test.ts',
      'test/transitions/children.int.test.ts',
      'test/transitions/waits.int.test.ts',
      'test/transitions/containment.int.test.ts',
      'test/transitions/discard.int.test.ts',
      'test/transitions/fail-fast.int.test.ts',
      'test/transitions/events.int.test.ts',
      'test/transitions/run-state.int.test.ts',
    ],
  },
];

interface Outcome {
  readonly major: number;
  readonly folder: string;
  /** The server's version as the harness's setup line gave it, e.g. `14.23`. */
  readonly version: string | undefined;
  readonly passed: number;
  readonly failed: number;
  readonly seconds: number;
  readonly exitCode: number;
  /** Whether vitest wrote its report: a run that ends without one ended before its tests did. */
  readonly reported: boolean;
}

const vitest = path.join(repoRoot, 'node_modules', '.bin', 'vitest');

function majorsToRun(args: readonly string[]): number[] {
  const known = Object.keys(embeddedPostgresPackages).map(Number);
  if (args.length === 0) return known.sort((a, b) => b - a);
  return args.map((arg) => {
    const major = Number(arg);
    embeddedPostgresPackage(major); // throws naming the versions there are
    return major;
  });
}

/** Fails before anything runs when a listed test file is gone: a rename must not shrink the matrix. */
function checkFilesExist(): void {
  const missing = suites.flatMap(({ folder, files = [] }) =>
    files
      .map((file) => path.join(folder, file))
      .filter((file) => !existsSync(path.join(repoRoot, file))),
  );
  if (missing.length > 0) {
    throw new Error(
      `the PostgreSQL matrix lists test files that do not exist: ${missing.join(', ')} ` +
        '(update the suites in tools/test-db/src/pg-matrix.ts)',
    );
  }
}

/** The environment of a run on `major`: the embedded server, never the machine's. */
function environmentFor(major: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.CYCLONE_TEST_DATABASE_URL;
  // The default version runs exactly as the README's `npm test` does on a machine with no setup.
  if (major === defaultEmbeddedMajor) delete env.CYCLONE_TEST_POSTGRES_VERSION;
  else env.CYCLONE_TEST_POSTGRES_VERSION = String(major);
  return env;
}

async function runSuite(major: number, suite: Suite): Promise<Outcome> {
  const report = path.join(
    repoRoot,
    'reports',
    'vitest',
    `pg${major}-${path.basename(suite.folder)}.json`,
  );
  rmSync(report, { force: true });
  const started = performance.now();
  let version: string | undefined;
  const exitCode = await new Promise<number>((resolve, reject) => {
    const child = spawn(vitest, ['run', ...(suite.files ?? []), `--outputFile.json=${report}`], {
      cwd: path.join(repoRoot, suite.folder),
      env: environmentFor(major),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The versions run side by side: each line of their output says which one it is from.
    const prefix = `[pg${major}] `;
    prefixLines(child.stdout, process.stdout, prefix, (text) => {
      version ??= /\[test-db\] PostgreSQL (\S+) from/.exec(text)?.[1];
    });
    prefixLines(child.stderr, process.stderr, prefix);
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
  const seconds = Math.round((performance.now() - started) / 1000);
  const reported = existsSync(report);
  const counts = reported
    ? (JSON.parse(readFileSync(report, 'utf8')) as {
        numPassedTests?: number;
        numFailedTests?: number;
      })
    : {};
  return {
    major,
    folder: suite.folder,
    version,
    passed: counts.numPassedTests ?? 0,
    failed: counts.numFailedTests ?? 0,
    seconds,
    exitCode,
    reported,
  };
}

/** Copies `from` to `to` line by line, each line after `prefix`; `seen` gets each line too. */
function prefixLines(
  from: Readable,
  to: Writable,
  prefix: string,
  seen: (line: string) => void = () => undefined,
): void {
  createInterface({ input: from, crlfDelay: Infinity }).on('line', (text) => {
    seen(text);
    to.write(`${prefix}${text}\n`);
  });
}

function line(outcome: Outcome): string {
  const server = `PostgreSQL ${outcome.version ?? `${outcome.major} (no server line)`}`;
  const status =
    (outcome.exitCode === 0 ? '' : `, vitest exited ${outcome.exitCode}`) +
    (outcome.reported ? '' : ' without a report (see its output above)');
  return (
    `[pg-matrix] ${server}, ${embeddedPostgresPackage(outcome.major)}: ${outcome.folder} ` +
    `${outcome.passed} passed, ${outcome.failed} failed in ${outcome.seconds} s${status}`
  );
}

async function main(): Promise<number> {
  checkFilesExist();
  // The versions run side by side, each on an embedded server of its own (a free port, a data
  // folder of its own), each version's suites one after the other: most of a suite's time is
  // waiting on its server, so two versions take little longer than one (decision 165).
  const perMajor = await Promise.all(
    majorsToRun(process.argv.slice(2)).map(async (major) => {
      console.log(`[pg-matrix] PostgreSQL ${major} (${embeddedPostgresPackage(major)})`);
      const done: Outcome[] = [];
      for (const suite of suites) {
        const outcome = await runSuite(major, suite);
        done.push(outcome);
        console.log(line(outcome));
      }
      return done;
    }),
  );
  const outcomes = perMajor.flat();
  console.log('\n[pg-matrix] summary');
  for (const outcome of outcomes) console.log(line(outcome));
  const bad = outcomes.filter(
    (o) => o.exitCode !== 0 || !o.reported || o.failed > 0 || o.passed === 0,
  );
  return bad.length === 0 ? 0 : 1;
}

process.exitCode = await main();
