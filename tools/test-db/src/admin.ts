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
  belongsToRun,
  databaseUrl,
  isStale,
  likePrefix,
  quoteIdent,
  templatePrefix,
  testDatabasePrefix,
} from './names.js';
import { sessionsInTheWay } from './sessions-in-the-way.js';

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
/** Postgres' `query_canceled`, which `statement_timeout` raises. */
const queryCanceled = '57014';

/**
 * How long one `CREATE DATABASE` or `DROP DATABASE` may wait. Connecting (10 s) and this stay
 * well inside vitest's 60 s hook timeout, so a database that cannot be made or dropped fails its
 * hook with this module's message, never with "Hook timed out".
 */
export const adminStatementTimeoutMs = 20_000;

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

/** The server's version: its major number (e.g. 17) and as the server states it (e.g. `17.6`). */
export async function serverVersion(serverUrl: string): Promise<{ major: number; text: string }> {
  return withClient(serverUrl, async (client) => {
    const result = await client.query<{ num: string; text: string }>(
      "SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS text",
    );
    const row = result.rows[0];
    return { major: Math.floor(Number(row?.num ?? 0) / 10_000), text: row?.text ?? '?' };
  });
}

/** Makes every later statement of `client`'s session fail with `query_canceled` after `ms`. */
async function limitStatementTime(client: pg.Client, ms: number): Promise<void> {
  await client.query("SELECT set_config('statement_timeout', $1, false)", [`${ms}ms`]);
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | undefined)?.code;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
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
 * template is being accessed by other users (two test files cloning at the same moment). Throws an
 * error naming both databases when it cannot; no statement waits longer than `statementTimeoutMs`.
 */
export async function cloneTemplate(
  serverUrl: string,
  template: string,
  name: string,
  timeoutMs = 15_000,
  statementTimeoutMs = adminStatementTimeoutMs,
): Promise<void> {
  const sql = `CREATE DATABASE ${quoteIdent(name)} TEMPLATE ${quoteIdent(template)}`;
  const deadline = Date.now() + timeoutMs;
  try {
    await withClient(serverUrl, async (client) => {
      await limitStatementTime(client, statementTimeoutMs);
      for (let attempt = 1; ; attempt++) {
        try {
          await client.query(sql);
          return;
        } catch (error) {
          const retryable = codeOf(error) === objectInUse;
          if (!retryable || Date.now() >= deadline) throw error;
          await sleep(Math.min(25 * attempt, 250) + Math.random() * 50);
        }
      }
    });
  } catch (error) {
    const waited = codeOf(error) === queryCanceled;
    throw new Error(
      `could not create the test database ${name} from the template ${template}: ` +
        (waited ? `still waiting after ${statementTimeoutMs / 1000} s` : messageOf(error)),
      { cause: error },
    );
  }
}

/**
 * `DROP DATABASE IF EXISTS name WITH (FORCE)`: ends open connections to it first (PostgreSQL 13+).
 * Throws an error naming the database, and the sessions in the way when the drop was still waiting
 * after `statementTimeoutMs`.
 */
export async function dropDatabase(
  serverUrl: string,
  name: string,
  statementTimeoutMs = adminStatementTimeoutMs,
): Promise<void> {
  try {
    await withClient(serverUrl, async (client) => {
      await limitStatementTime(client, statementTimeoutMs);
      try {
        await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      } catch (error) {
        if (codeOf(error) !== queryCanceled) throw error;
        const inTheWay = await sessionsInTheWay(client, name);
        if (inTheWay.length === 0) throw new DropStillWaitingError(name, statementTimeoutMs, error);
        throw new Error(
          `still waiting after ${statementTimeoutMs / 1000} s; in the way: ${inTheWay.join('; ')}`,
          { cause: error },
        );
      }
    });
  } catch (error) {
    if (error instanceof DropStillWaitingError) throw error;
    throw new Error(`could not drop the test database ${name}: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

/**
 * A drop that was still waiting when its statement time ran out, with no session of the database
 * in the way: the server itself was slow (the drop waits for a checkpoint, which a heavily loaded
 * disk can hold up for many seconds). The database is intact and the run's teardown drops it.
 */
export class DropStillWaitingError extends Error {
  constructor(
    readonly database: string,
    waitedMs: number,
    cause: unknown,
  ) {
    super(
      `could not drop the test database ${database}: still waiting after ${waitedMs / 1000} s; ` +
        'the server named no session in the way',
      { cause },
    );
    this.name = 'DropStillWaitingError';
  }
}

/**
 * Calls `dropOne` for each of `names`, one at a time, and returns how many it dropped. A failure
 * leaves that one alone: not ours to drop (another owner), gone already, or still needed by
 * something that outlived its run.
 */
export async function dropEach(
  names: readonly string[],
  dropOne: (name: string) => Promise<unknown>,
): Promise<number> {
  let dropped = 0;
  for (const name of names) {
    try {
      await dropOne(name);
      dropped++;
    } catch {
      // See above: left for its owner, or for the run that still uses it.
    }
  }
  return dropped;
}

/** Drops those of our databases (template or test prefix) that `drop` selects; returns how many. */
async function dropMatching(serverUrl: string, drop: (name: string) => boolean): Promise<number> {
  const names = await withClient(serverUrl, async (client) => {
    const result = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname LIKE $2',
      [likePrefix(templatePrefix), likePrefix(testDatabasePrefix)],
    );
    return result.rows.map((row) => row.datname).filter(drop);
  });
  return dropEach(names, (name) => dropDatabase(serverUrl, name));
}

/** Drops every database of the run tagged `runTag`: its template and any clone a file left behind. */
export function dropRunDatabases(serverUrl: string, runTag: string): Promise<number> {
  return dropMatching(serverUrl, (name) => belongsToRun(name, runTag));
}

/** Drops databases that killed runs left behind: ours by name, and created over an hour ago. */
export function dropStaleDatabases(serverUrl: string, now: Date = new Date()): Promise<number> {
  return dropMatching(serverUrl, (name) => isStale(name, now));
}
