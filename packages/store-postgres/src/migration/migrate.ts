import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { quoteIdent } from '../db/tables.js';
import { pendingMigrations, shippedMigrations } from './migration-journal.js';
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
 * a transaction-independent advisory lock lets one of them migrate while the others wait, and they
 * then find nothing left to do.
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
    return await migrateOn(pool, schema, options.migrationsFolder ?? defaultMigrationsFolder());
  } catch (error) {
    throw toStoreError(error, 'migrate', target);
  } finally {
    await ownPool?.end();
  }
}

async function migrateOn(pool: pg.Pool, schema: string, folder: string): Promise<MigrateResult> {
  const client = await pool.connect();
  const lockKey = `cyclone:migrate:${schema}`;
  const migrationsTable = 'cyclone_migrations';
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey]);
    try {
      // Nothing pending: return before any DDL, so a role with data rights only (no CREATE on the
      // database or the schema) can call migrate() at boot.
      const before = await appliedRecord(client, schema, migrationsTable);
      if (pendingMigrations(shippedMigrations(folder), before.latest).length === 0) {
        return { applied: 0 };
      }
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      // The generated SQL names tables unqualified; the search path places them in the schema.
      await client.query(`SET search_path TO ${quoteIdent(schema)}`);
      // Loaded here, not at import: a worker or client that never migrates does not pay for
      // drizzle-orm's modules in memory (about 6 MB of a process).
      const { drizzle } = await import('drizzle-orm/node-postgres');
      const { migrate: drizzleMigrate } = await import('drizzle-orm/node-postgres/migrator');
      await drizzleMigrate(drizzle(client), {
        migrationsFolder: folder,
        migrationsSchema: schema,
        migrationsTable,
      });
      const after = await appliedRecord(client, schema, migrationsTable);
      return { applied: after.count - before.count };
    } finally {
      await client.query('RESET search_path');
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey]);
    }
  } finally {
    client.release();
  }
}

/** How many migrations are recorded as applied, and the newest one's timestamp. */
async function appliedRecord(
  client: pg.PoolClient,
  schema: string,
  table: string,
): Promise<{ count: number; latest: number | null }> {
  const qualified = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  const exists = await client.query<{ present: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS present',
    [qualified],
  );
  if (!exists.rows[0]?.present) return { count: 0, latest: null };
  const result = await client.query<{ n: string; latest: string | null }>(
    `SELECT count(*) AS n, max(created_at)::text AS latest FROM ${qualified}`,
  );
  const row = result.rows[0];
  return {
    count: Number(row?.n ?? 0),
    latest: row?.latest == null ? null : Number(row.latest),
  };
}
