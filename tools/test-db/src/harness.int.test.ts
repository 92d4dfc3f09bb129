import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  cloneTemplate,
  dropDatabase,
  hasMigrations,
  migrationsRecord,
  withClient,
} from './admin.js';
import { newRoleName, newRunTag, newTestDatabaseName, quoteIdent } from './names.js';
import { createTestDatabase, createTestRole, testDbContext, useTestDatabase } from './index.js';
import { migrationsFolder } from './paths.js';
import { createLoginRole, dropRunRoles, dropStaleRoles, newRolePassword } from './roles.js';

const fileDatabase = useTestDatabase();

async function query<T extends pg.QueryResultRow>(
  url: string,
  sql: string,
  values: unknown[] = [],
): Promise<T[]> {
  return withClient(url, async (client) => (await client.query<T>(sql, values)).rows);
}

async function databaseExists(name: string): Promise<boolean> {
  const rows = await query(
    testDbContext().serverUrl,
    'SELECT 1 FROM pg_database WHERE datname = $1',
    [name],
  );
  return rows.length === 1;
}

async function roleExists(name: string): Promise<boolean> {
  const rows = await query(testDbContext().serverUrl, 'SELECT 1 FROM pg_roles WHERE rolname = $1', [
    name,
  ]);
  return rows.length === 1;
}

/** The message `promise` rejects with; fails the test when it resolves. */
async function failureOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(Error);
  return (error as Error).message;
}

/** The user a URL logs in as (the driver's default, `postgres` here, when it names none). */
function userOf(url: string): string {
  return decodeURIComponent(new URL(url).username) || 'postgres';
}

/**
 * Opens a TCP connection to the server and sends a startup message for `database`, then goes
 * silent: what a client that fails during password authentication leaves. Resolves with the socket
 * and whether the server asked for a password (it answers a trust login with AuthenticationOk).
 */
async function startLoginAndGoSilent(
  database: string,
): Promise<{ socket: net.Socket; asksForPassword: boolean }> {
  const server = new URL(testDbContext().serverUrl);
  const socket = net.connect(Number(server.port || 5432), server.hostname);
  socket.on('error', () => undefined); // closed by the test or by the server: either is expected
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const user = userOf(server.toString());
  const body = Buffer.from(`user\0${user}\0database\0${database}\0\0`);
  const header = Buffer.alloc(8);
  header.writeInt32BE(body.length + 8, 0);
  header.writeInt32BE(196_608, 4); // protocol 3.0
  const answer = new Promise<Buffer>((resolve) => socket.once('data', resolve));
  socket.write(Buffer.concat([header, body]));
  const first = await answer;
  // 'R' (Authentication), length, then the request: 0 is AuthenticationOk, anything else asks.
  const asksForPassword = first[0] === 0x52 && first.readInt32BE(5) !== 0;
  return { socket, asksForPassword };
}

describe('the test database harness', () => {
  it('gives the test file a database of its own, named after the run', async () => {
    const { runTag } = testDbContext();
    expect(fileDatabase.name.startsWith(`cyclone_test_${runTag}_`)).toBe(true);
    const [row] = await query<{ db: string }>(fileDatabase.url, 'SELECT current_database() AS db');
    expect(row?.db).toBe(fileDatabase.name);
  });

  it("creates databases that are distinct and do not see each other's tables", async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      expect(a.name).not.toBe(b.name);
      expect(a.url).not.toBe(b.url);
      await query(a.url, 'CREATE TABLE only_in_a (id int PRIMARY KEY)');
      await query(a.url, 'INSERT INTO only_in_a VALUES (1)');
      const [inA] = await query<{ t: string | null }>(
        a.url,
        "SELECT to_regclass('only_in_a')::text AS t",
      );
      const [inB] = await query<{ t: string | null }>(
        b.url,
        "SELECT to_regclass('only_in_a')::text AS t",
      );
      expect(inA?.t).toBe('only_in_a');
      expect(inB?.t).toBeNull();
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
    expect(await databaseExists(a.name)).toBe(false);
    expect(await databaseExists(b.name)).toBe(false);
  });

  it('clones the template even when several files ask at the same moment', async () => {
    const databases = await Promise.all(Array.from({ length: 4 }, () => createTestDatabase()));
    try {
      expect(new Set(databases.map((db) => db.name)).size).toBe(4);
    } finally {
      await Promise.all(databases.map((db) => db.drop()));
    }
  });

  it('drops a database that still has open connections', async () => {
    const db = await createTestDatabase();
    const client = new pg.Client({ connectionString: db.url });
    client.on('error', () => undefined); // the drop terminates this connection
    await client.connect();
    try {
      await db.drop();
      expect(await databaseExists(db.name)).toBe(false);
    } finally {
      await client.end().catch(() => undefined);
    }
  });

  it('gives a test a login role of its own that signs in with its password, and drops it', async () => {
    const role = await createTestRole(fileDatabase.url);
    expect(role.name.startsWith(`cyclone_role_${testDbContext().runTag}_`)).toBe(true);
    expect(new URL(role.url).password).not.toBe('');
    const [row] = await query<{ who: string; db: string }>(
      role.url,
      'SELECT current_user AS who, current_database() AS db',
    );
    expect(row).toEqual({ who: role.name, db: fileDatabase.name });
    await role.drop();
    await role.drop(); // a second drop is harmless
    expect(await roleExists(role.name)).toBe(false);
  });

  it("drops a run's roles at its end and roles of killed runs after an hour", async () => {
    const { serverUrl } = testDbContext();
    const otherRun = newRunTag();
    const killedRun = newRunTag(new Date(Date.now() - 2 * 60 * 60 * 1000));
    const ofOtherRun = newRoleName(otherRun);
    const ofKilledRun = newRoleName(killedRun);
    await createLoginRole(fileDatabase.url, ofOtherRun, newRolePassword());
    await createLoginRole(fileDatabase.url, ofKilledRun, newRolePassword());
    expect(await dropStaleRoles(serverUrl)).toBeGreaterThanOrEqual(1);
    expect(await roleExists(ofKilledRun)).toBe(false);
    expect(await roleExists(ofOtherRun)).toBe(true); // young: another run's, still going
    expect(await dropRunRoles(serverUrl, otherRun)).toBe(1);
    expect(await roleExists(ofOtherRun)).toBe(false);
  });

  it('says which database it could not create, and why', async () => {
    const { serverUrl, runTag } = testDbContext();
    const name = newTestDatabaseName(runTag);
    await expect(cloneTemplate(serverUrl, 'cyclone_tpl_missing', name)).rejects.toThrow(
      `could not create the test database ${name} from the template cyclone_tpl_missing: ` +
        'template database "cyclone_tpl_missing" does not exist',
    );
  });

  it('gives up a drop that waits on a lock after its timeout, naming the session that holds it', async () => {
    const db = await createTestDatabase();
    const holder = new pg.Client({
      connectionString: testDbContext().serverUrl,
      application_name: 'lock-holder',
    });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`COMMENT ON DATABASE ${quoteIdent(db.name)} IS 'held'`);
      const { pid } = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))
        .rows[0]!;
      const message = await failureOf(dropDatabase(testDbContext().serverUrl, db.name, 1000));
      expect(message).toContain(
        `could not drop the test database ${db.name}: still waiting after 1 s; in the way: `,
      );
      expect(message).toContain(
        `pid ${pid} (user ${userOf(db.url)}, application "lock-holder", idle in transaction) ` +
          'holds a lock on the database',
      );
      await holder.query('ROLLBACK');
    } finally {
      await holder.end();
    }
    await db.drop();
    expect(await databaseExists(db.name)).toBe(false);
  });

  it('names a login left half-way, which holds up any drop while the server waits for its password (PostgreSQL 15+)', async () => {
    const db = await createTestDatabase();
    const other = await createTestDatabase();
    const [{ num } = { num: 0 }] = await query<{ num: number }>(
      db.url,
      "SELECT current_setting('server_version_num')::int AS num",
    );
    const { socket, asksForPassword } = await startLoginAndGoSilent(other.name);
    try {
      if (asksForPassword && num >= 150_000) {
        const message = await failureOf(dropDatabase(testDbContext().serverUrl, db.name, 1000));
        expect(message).toContain(
          `could not drop the test database ${db.name}: still waiting after 1 s; in the way: `,
        );
        expect(message).toMatch(
          new RegExp(
            `pid \\d+: a login from 127\\.0\\.0\\.1:${socket.localPort} that has not finished`,
          ),
        );
      } else {
        // A trust-auth server logs the client in at once, and the drop ends that session with
        // FORCE; before 15, DROP DATABASE waits for no other database's sessions.
        await db.drop();
      }
    } finally {
      socket.destroy();
    }
    // The client gone, its backend ends and the drops go through.
    await db.drop();
    await other.drop();
    expect(await databaseExists(db.name)).toBe(false);
    expect(await databaseExists(other.name)).toBe(false);
  });

  it.skipIf(!hasMigrations(migrationsFolder))(
    "carries the repo's migrations, applied once to the template",
    async () => {
      const journal = JSON.parse(
        readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8'),
      ) as { entries: unknown[] };
      expect(testDbContext().migrated).toBe(true);
      const [row] = await query<{ n: number }>(
        fileDatabase.url,
        `SELECT count(*)::int AS n FROM ${quoteIdent(migrationsRecord.migrationsSchema)}.${quoteIdent(migrationsRecord.migrationsTable)}`,
      );
      expect(row?.n).toBe(journal.entries.length);
    },
  );

  it('reports whether the template was migrated', () => {
    expect(testDbContext().migrated).toBe(hasMigrations(migrationsFolder));
  });
});
