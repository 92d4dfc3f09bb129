/**
 * Database-level operations on the test server: the template, the per-file clones, and clean-up.
 * Identifiers are quoted with {@link quoteIdent} (Postgres cannot bind them); every value is a bound
 * parameter.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import {
  createdAt,
  databaseUrl,
  quoteIdent,
  staleAfterMs,
  templatePrefix,
  testDatabasePrefix,
} from './names.js';

/**
 * Where drizzle records applied migrations. Must agree with `migrate()` of @cyclone/store-postgres,
 * so that a test calling it on a clone of the template finds everything applied already.
 */
export const migrationsRecord = {
  migrationsSchema: 'public',
  migrationsTable: 'cyclone_migrations',
};

/** Postgres' `object_in_use`: "source database ... is being accessed by other users". */
const objectInUse = '55006';

/** Opens a connection to `url`, runs `fn`, and always closes the connection. */
export async function withClient<T>(
  url: string,
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A server-side termination of an idle connection must not crash the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The server's major version, e.g. 17. */
export async function serverMajorVersion(serverUrl: string): Promise<number> {
  return withClient(serverUrl, async (client) => {
    const result = await client.query<{ server_version_num: string }>('SHOW server_version_num');
    return Math.floor(Number(result.rows[0]?.server_version_num ?? 0) / 10_000);
  });
}

/** Whether `folder` holds drizzle-kit migrations (its `meta/_journal.json` exists). */
export function hasMigrations(folder: string): boolean {
  return existsSync(path.join(folder, 'meta', '_journal.json'));
}

/**
 * Creates the run's template database and applies the migrations in `migrationsFolder` to it, if
 * there are any. Connections to the template are then disallowed, so that a stray one cannot block
 * the clones. Returns whether migrations were applied.
 */
export async function createTemplate(
  serverUrl: string,
  name: string,
  migrationsFolder: string,
): Promise<{ migrated: boolean }> {
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${quoteIdent(name)}`));
  try {
    const migrated = hasMigrations(migrationsFolder);
    if (migrated) {
      await withClient(databaseUrl(serverUrl, name), (client) =>
        migrate(drizzle({ client }), { migrationsFolder, ...migrationsRecord }),
      );
    }
    await withClient(serverUrl, (client) =>
      client.query(`ALTER DATABASE ${quoteIdent(name)} WITH ALLOW_CONNECTIONS false`),
    );
    return { migrated };
  } catch (error) {
    await dropDatabase(serverUrl, name).catch(() => undefined);
    throw error;
  }
}

/**
 * `CREATE DATABASE name TEMPLATE template`, retried for a while when Postgres answers that the
 * template is being accessed by other users (two test files cloning at the same moment).
 */
export async function cloneTemplate(
  serverUrl: string,
  template: string,
  name: string,
  timeoutMs = 15_000,
): Promise<void> {
  const sql = `CREATE DATABASE ${quoteIdent(name)} TEMPLATE ${quoteIdent(template)}`;
  const deadline = Date.now() + timeoutMs;
  await withClient(serverUrl, async (client) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(sql);
        return;
      } catch (error) {
        const retryable = (error as { code?: unknown }).code === objectInUse;
        if (!retryable || Date.now() >= deadline) throw error;
        await sleep(Math.min(25 * attempt, 250) + Math.random() * 50);
      }
    }
  });
}

/** `DROP DATABASE IF EXISTS name WITH (FORCE)`: ends open connections to it first (PostgreSQL 13+). */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await withClient(serverUrl, (client) =>
    client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`),
  );
}

/** Drops those of our databases (template or test prefix) that `keep` rejects; returns how many. */
async function dropMatching(serverUrl: string, keep: (name: string) => boolean): Promise<number> {
  const names = await withClient(serverUrl, async (client) => {
    const result = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname LIKE $2',
      [likePrefix(templatePrefix), likePrefix(testDatabasePrefix)],
    );
    return result.rows.map((row) => row.datname).filter((name) => !keep(name));
  });
  let dropped = 0;
  for (const name of names) {
    try {
      await dropDatabase(serverUrl, name);
      dropped++;
    } catch {
      // Not ours to drop (another owner), or already gone: leave it.
    }
  }
  return dropped;
}

/** Drops every database of the run tagged `runTag`: its template and any clone a file left behind. */
export function dropRunDatabases(serverUrl: string, runTag: string): Promise<number> {
  const suffix = `${runTag}_`;
  return dropMatching(
    serverUrl,
    (name) =>
      name !== `${templatePrefix}${runTag}` && !name.startsWith(`${testDatabasePrefix}${suffix}`),
  );
}

/** Drops databases that killed runs left behind: ours by name, and created over an hour ago. */
export function dropStaleDatabases(serverUrl: string, now: Date = new Date()): Promise<number> {
  const cutoff = now.getTime() - staleAfterMs;
  return dropMatching(serverUrl, (name) => {
    const created = createdAt(name);
    return created === undefined || created.getTime() > cutoff;
  });
}

function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
