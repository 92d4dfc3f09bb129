import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import pg from 'pg';
import { quoteIdent } from '../db/tables.js';
import { withTransaction } from '../db/transaction.js';
import { pendingMigrations } from './migration-journal.js';
import { redactUrl, toStoreError } from '../db/driver-errors.js';
import { assertPostgresUrl } from '../db/database-url.js';

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** A pool the application owns; or give `connectionString`. */
  readonly pool?: pg.Pool;
  readonly connectionString?: string;
  /**
   * Postgres schema that holds Cyclone's tables.
   * @defaultValue `'public'`
   */
  readonly schema?: string;
  /** Folder of the SQL migrations; defaults to the ones shipped with this package. */
  readonly migrationsFolder?: string;
}

/** What {@link migrate} did. */
export interface MigrateResult {
  /** Migrations applied by this call (0 when the database was already up to date). */
  readonly applied: number;
}

/**
 * Where the SQL migrations are: the copy shipped in the package (`dist/` runs), or the
 * repository's top-level `migrations/` folder when running from source, so a freshly generated
 * migration is used without a build.
 */
export function defaultMigrationsFolder(): string {
  // This module is in src/migration/ (from source) or dist/migration/ (built).
  const build = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const packageRoot = path.dirname(build);
  const repository = path.resolve(packageRoot, '../../migrations');
  if (path.basename(build) === 'src' && existsSync(repository)) return repository;
  return path.resolve(packageRoot, 'migrations');
}

/**
 * Applies Cyclone's SQL migrations. Idempotent, and safe when several processes call it at once:
 * the whole migration is one transaction holding a transaction-scoped advisory lock, so one
 * caller migrates while the others wait, and they then find nothing left to do. It keeps no
 * session state (the lock and the search path end with the transaction), so it runs the same
 * through a pooler in transaction mode as on a direct connection.
 *
 * @example
 * ```ts
 * import { migrate } from '@cyclone/store-postgres';
 * await migrate({ connectionString: process.env.CYCLONE_DATABASE_URL });
 * ```
 */
export async function migrate(options: MigrateOptions): Promise<MigrateResult> {
  const schema = options.schema ?? 'public';
  if (!options.pool) assertPostgresUrl(options.connectionString, 'migrate options');
  const target = {
    description: options.connectionString ? redactUrl(options.connectionString) : 'the given pool',
    schema,
  };
  const ownPool = options.pool
    ? undefined
    : new pg.Pool({
        connectionString: options.connectionString,
        max: 1,
        connectionTimeoutMillis: 10_000,
      });
  // An idle connection the server ends between statements must not crash the process.
  ownPool?.on('error', () => undefined);
  const pool = options.pool ?? ownPool!;
  try {
    const folder = options.migrationsFolder ?? defaultMigrationsFolder();
    return await withTransaction(pool, (client) => migrateIn(client, schema, folder));
  } catch (error) {
    throw toStoreError(error, 'migrate', target);
  } finally {
    await ownPool?.end();
  }
}

/** Where the applied migrations are recorded, in drizzle's format (drizzle-kit reads it too). */
const MIGRATIONS_TABLE = 'cyclone_migrations';

/** Applies the pending migrations inside the caller's transaction on `client`. */
async function migrateIn(
  client: pg.PoolClient,
  schema: string,
  folder: string,
): Promise<MigrateResult> {
  // Held until the transaction ends, on whichever server session runs it: nothing to unlock, and
  // nothing left behind on a pooled session.
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`cyclone:migrate:${schema}`]);
  // Nothing pending: return before any DDL, so a role with data rights only (no CREATE on the
  // database or the schema) can call migrate() at boot.
  const record = `${quoteIdent(schema)}.${quoteIdent(MIGRATIONS_TABLE)}`;
  const files = readMigrationFiles({ migrationsFolder: folder }).map((file) => ({
    ...file,
    when: file.folderMillis,
  }));
  const pending = pendingMigrations(files, await latestApplied(client, record));
  if (pending.length === 0) return { applied: 0 };
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${record} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`,
  );
  // The generated SQL names tables unqualified; the search path, for this transaction only,
  // places them in the schema.
  await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
  for (const migration of pending) {
    for (const statement of migration.sql) await client.query(statement);
    await client.query(`INSERT INTO ${record} (hash, created_at) VALUES ($1, $2)`, [
      migration.hash,
      migration.when,
    ]);
  }
  return { applied: pending.length };
}

/** The newest applied migration's timestamp; null when none is (or the record does not exist). */
async function latestApplied(client: pg.PoolClient, record: string): Promise<number | null> {
  const exists = await client.query<{ present: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS present',
    [record],
  );
  if (!exists.rows[0]?.present) return null;
  const result = await client.query<{ latest: string | null }>(
    `SELECT max(created_at)::text AS latest FROM ${record}`,
  );
  const latest = result.rows[0]?.latest;
  return latest == null ? null : Number(latest);
}
