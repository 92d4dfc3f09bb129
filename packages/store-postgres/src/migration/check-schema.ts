import { SchemaNotMigratedError } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { pendingMigrations, shippedMigrations } from './migration-journal.js';
import { defineStatement } from '../db/statement.js';

/** The newest applied migration's timestamp (drizzle's `created_at`), as text. */
interface LatestMigrationRow {
  latest: string | null;
}

const latestMigration = defineStatement<Record<string, never>, LatestMigrationRow>(
  'latest-migration',
  (t) => `SELECT max(created_at)::text AS latest FROM ${t.migrations}`,
);

const MISSING_RELATION = new Set(['42P01', '3F000']);

/**
 * Fails fast unless the database has every migration in `migrationsFolder`: reads the applied
 * migrations' record and names the missing ones. An unreachable database fails here too (the
 * store maps that error at its boundary).
 *
 * @throws SchemaNotMigratedError naming the missing migrations
 */
export async function checkSchema(db: SqlRunner, migrationsFolder: string): Promise<void> {
  const shipped = shippedMigrations(migrationsFolder);
  const schema = db.tables.schema;
  let latest: number | null;
  try {
    const row = await db.one(latestMigration, {});
    latest = row?.latest == null ? null : Number(row.latest);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && MISSING_RELATION.has(code)) {
      throw new SchemaNotMigratedError(
        schema,
        shipped.map((m) => m.tag),
        { cause: error },
      );
    }
    throw error;
  }
  const missing = pendingMigrations(shipped, latest);
  if (missing.length > 0) {
    throw new SchemaNotMigratedError(
      schema,
      missing.map((m) => m.tag),
    );
  }
}
