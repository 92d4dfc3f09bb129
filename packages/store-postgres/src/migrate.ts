import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate as drizzleMigrate } from 'drizzle-orm/node-postgres/migrator';
import { quoteIdent } from './tables.js';

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
  const here = path.dirname(fileURLToPath(import.meta.url));
  const repository = path.resolve(here, '../../../migrations');
  if (path.basename(here) === 'src' && existsSync(repository)) return repository;
  return path.resolve(here, '../migrations');
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
  const ownPool = options.pool
    ? undefined
    : new pg.Pool({ connectionString: options.connectionString, max: 1 });
  const pool = options.pool ?? ownPool!;
  const client = await pool.connect();
  const lockKey = `cyclone:migrate:${schema}`;
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      const migrationsTable = 'cyclone_migrations';
      const before = await countApplied(client, schema, migrationsTable);
      // The generated SQL names tables unqualified; the search path places them in the schema.
      await client.query(`SET search_path TO ${quoteIdent(schema)}`);
      await drizzleMigrate(drizzle(client), {
        migrationsFolder: options.migrationsFolder ?? defaultMigrationsFolder(),
        migrationsSchema: schema,
        migrationsTable,
      });
      const after = await countApplied(client, schema, migrationsTable);
      return { applied: after - before };
    } finally {
      await client.query('RESET search_path');
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey]);
    }
  } finally {
    client.release();
    await ownPool?.end();
  }
}

async function countApplied(client: pg.PoolClient, schema: string, table: string): Promise<number> {
  const exists = await client.query<{ present: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS present',
    [`${quoteIdent(schema)}.${quoteIdent(table)}`],
  );
  if (!exists.rows[0]?.present) return 0;
  const result = await client.query<{ n: string }>(
    `SELECT count(*) AS n FROM ${quoteIdent(schema)}.${quoteIdent(table)}`,
  );
  return Number(result.rows[0]?.n ?? 0);
}
