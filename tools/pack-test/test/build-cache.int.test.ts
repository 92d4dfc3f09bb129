/**
 * A build restored from Nx's cache must equal a clean one. Nx's cache lives outside the checkout,
 * so a second clone on the same machine replays the first clone's build: every file the build
 * writes has to be among the target's outputs, and everything it reads among its inputs. The
 * store's build copies the top-level migrations/ into the package; when that folder was not an
 * output, the second clone had no migrations and `cyclone dev` failed with "Can't find
 * meta/_journal.json file".
 *
 * Both clones are of HEAD (commit first: uncommitted changes are not tested). They share
 * node_modules with this checkout, except for the workspace links, which point into each clone.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
} from 'node:fs';
import { rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanEnv,
  createEmptyDatabase,
  type EmptyDatabase,
  query,
  repoRoot,
  run,
} from './support.js';

const work = mkdtempSync(path.join(tmpdir(), 'cyclone-build-cache-'));
// NX_SKIP_NX_CACHE (set by .ci/run) is dropped by cleanEnv: this test is about the cache. By
// default Nx keeps the cache and the database that indexes it in one per-user folder that every
// checkout of the repository shares; with an explicit cache folder, the index follows the
// workspace-data folder, so both are set, to folders of this test's own.
const nxEnv = cleanEnv({
  NX_CACHE_DIRECTORY: path.join(work, 'nx-cache'),
  NX_WORKSPACE_DATA_DIRECTORY: path.join(work, 'nx-workspace-data'),
  NX_DAEMON: 'false',
  NX_NO_CLOUD: 'true',
  NX_TUI: 'false',
});

/** Clones HEAD of this checkout into `work/<name>`, with node_modules linked as described above. */
async function cloneHead(name: string): Promise<string> {
  const head = (await run('git', ['rev-parse', 'HEAD'], { cwd: repoRoot })).stdout.trim();
  const dir = path.join(work, name);
  await run('git', ['clone', '--quiet', '--no-checkout', repoRoot, dir], { cwd: work });
  await run('git', ['checkout', '--quiet', '--detach', head], { cwd: dir });
  const modules = path.join(dir, 'node_modules');
  mkdirSync(path.join(modules, '@cyclone'), { recursive: true });
  for (const entry of readdirSync(path.join(repoRoot, 'node_modules'))) {
    if (entry === '@cyclone' || entry === '.cache') continue;
    await symlink(path.join(repoRoot, 'node_modules', entry), path.join(modules, entry));
  }
  for (const group of ['packages', 'tools']) {
    for (const folder of readdirSync(path.join(dir, group))) {
      const manifest = path.join(dir, group, folder, 'package.json');
      if (!existsSync(manifest)) continue;
      const { name: pkg } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string };
      await symlink(path.join(dir, group, folder), path.join(modules, pkg));
    }
  }
  return dir;
}

/** Builds every package in `dir`; returns the projects whose build was replayed from the cache. */
async function build(dir: string): Promise<{ cached: string[]; ran: string[] }> {
  const nx = path.join(dir, 'node_modules', 'nx', 'dist', 'bin', 'nx.js');
  const { stdout } = await run(
    process.execPath,
    [nx, 'run-many', '-t', 'build', '--output-style=static', '--parallel=1'],
    { cwd: dir, env: nxEnv, timeoutMs: 420_000 },
  );
  const cached: string[] = [];
  const ran: string[] = [];
  for (const match of stdout.matchAll(/^> nx run (\S+):build(.*)$/gm)) {
    (/\[(local cache|existing outputs match the cache)/.test(match[2]!) ? cached : ran).push(
      match[1]!,
    );
  }
  return { cached: cached.sort(), ran: ran.sort() };
}

/** The files of a migrations folder with their contents, by relative path. */
function migrationFiles(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const file of readdirSync(folder, { recursive: true }).map(String).sort()) {
    const full = path.join(folder, file);
    if (file.endsWith('.sql') || file.endsWith('.json')) files[file] = readFileSync(full, 'utf8');
  }
  return files;
}

/** What the store's build ships: the SQL files and the journal, not drizzle-kit's snapshots. */
function expectedMigrations(cloneDir: string): Record<string, string> {
  const all = migrationFiles(path.join(cloneDir, 'migrations'));
  return Object.fromEntries(
    Object.entries(all).filter(([file]) => !file.endsWith('_snapshot.json')),
  );
}

describe('a build replayed from the Nx cache', () => {
  let first: string;
  let second: string;
  let firstBuild: { cached: string[]; ran: string[] };
  let secondBuild: { cached: string[]; ran: string[] };
  let database: EmptyDatabase;

  beforeAll(async () => {
    first = await cloneHead('first');
    firstBuild = await build(first);
    second = await cloneHead('second');
    secondBuild = await build(second);
    database = await createEmptyDatabase();
  });

  afterAll(async () => {
    await database?.drop();
    await rm(work, { recursive: true, force: true });
  });

  it('is what the second clone gets', () => {
    // The first clone starts from an empty cache; had anything been replayed, the test proves nothing.
    expect(firstBuild.cached).toEqual([]);
    expect(firstBuild.ran).toContain('@cyclone/store-postgres');
    expect(secondBuild.ran).toEqual([]);
    expect(secondBuild.cached).toEqual(firstBuild.ran);
  });

  it('restores the store package with its migrations', () => {
    const shipped = path.join(second, 'packages', 'store-postgres', 'migrations');
    expect(existsSync(path.join(shipped, 'meta', '_journal.json'))).toBe(true);
    expect(migrationFiles(shipped)).toEqual(expectedMigrations(second));
    expect(migrationFiles(shipped)).toEqual(
      migrationFiles(path.join(first, 'packages', 'store-postgres', 'migrations')),
    );
  });

  it('gives a CLI whose migrate sets up a fresh database', async () => {
    const cli = path.join(second, 'packages', 'cli', 'bin', 'cyclone.js');
    const { stdout } = await run(
      process.execPath,
      [cli, 'migrate', '--json', '--database-url', database.url],
      { cwd: work, env: cleanEnv() },
    );
    const journal = JSON.parse(
      readFileSync(path.join(second, 'migrations', 'meta', '_journal.json'), 'utf8'),
    ) as { entries: unknown[] };
    expect(JSON.parse(stdout)).toEqual({ applied: journal.entries.length });
    const [counts] = await query<{ migrations: number; runs: number }>(
      database.url,
      'SELECT (SELECT count(*)::int FROM cyclone_migrations) AS migrations, ' +
        '(SELECT count(*)::int FROM cyclone_runs) AS runs',
    );
    expect(counts).toEqual({ migrations: journal.entries.length, runs: 0 });
  });

  it('is invalidated by a change to the top-level migrations', async () => {
    const changed = path.join(second, 'migrations', '0000_init.sql');
    appendFileSync(changed, '\n-- a change the store build must pick up\n');
    const rebuilt = await build(second);
    expect(rebuilt.ran).toContain('@cyclone/store-postgres');
    expect(
      readFileSync(
        path.join(second, 'packages', 'store-postgres', 'migrations', '0000_init.sql'),
        'utf8',
      ),
    ).toBe(readFileSync(changed, 'utf8'));
  });
});
