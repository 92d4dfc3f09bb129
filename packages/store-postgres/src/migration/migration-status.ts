import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { defaultMigrationsFolder } from './migrate.js';
import { quoteIdent } from '../db/tables.js';
import { shippedMigrations } from './migration-journal.js';

/** Options of {@link migrationStatus}. */
export interface MigrationStatusOptions {
  /** A pool the application owns; or give `connectionString`. */
  readonly pool?: pg.Pool;
  readonly connectionString?: string;
  /** @defaultValue `'public'` */
  readonly schema?: string;
  /** Folder of the SQL migrations; defaults to the ones shipped with this package. */
  readonly migrationsFolder?: string;
}

/** One migration of the folder, and whether the database has it. */
export interface MigrationState {
  /** The file's name without `.sql`, e.g. `0001_workers`. */
  readonly tag: string;
  /** When it was generated: the journal's `when`, which the migrations table records. */
  readonly createdAt: Date;
  readonly applied: boolean;
  /**
   * Whether the file's SHA-256 differs from the one recorded when it was applied: it was edited
   * afterwards (only known for applied migrations recorded with this timestamp).
   */
  readonly changedSinceApplied: boolean;
}

/** What {@link migrationStatus} found. */
export interface MigrationStatus {
  /** Every migration of the folder, in order. */
  readonly migrations: readonly MigrationState[];
  readonly applied: readonly MigrationState[];
  readonly pending: readonly MigrationState[];
}

/**
 * Lists the folder's migrations as applied or pending, reading the table `migrate()` writes
 * (`<schema>.cyclone_migrations`) and nothing else. A migration counts as applied as drizzle's
 * migrator decides: its timestamp is at or before the newest one recorded.
 *
 * @example
 * ```ts
 * const { pending } = await migrationStatus({ connectionString: process.env.CYCLONE_DATABASE_URL });
 * if (pending.length > 0) console.log(`${pending.length} migration(s) to apply`);
 * ```
 */
export async function migrationStatus(options: MigrationStatusOptions): Promise<MigrationStatus> {
  const folder = options.migrationsFolder ?? defaultMigrationsFolder();
  const recorded = await readRecorded(options);
  const newest = Math.max(-Infinity, ...recorded.keys());
  const migrations = shippedMigrations(folder).map((entry): MigrationState => {
    const applied = entry.when <= newest;
    const hash = recorded.get(entry.when);
    const sql = readFileSync(path.join(folder, `${entry.tag}.sql`), 'utf8');
    return {
      tag: entry.tag,
      createdAt: new Date(entry.when),
      applied,
      changedSinceApplied:
        applied && hash !== undefined && hash !== createHash('sha256').update(sql).digest('hex'),
    };
  });
  return {
    migrations,
    applied: migrations.filter((m) => m.applied),
    pending: migrations.filter((m) => !m.applied),
  };
}

/** `created_at -> hash` of the recorded migrations; empty when the table does not exist yet. */
async function readRecorded(options: MigrationStatusOptions): Promise<Map<number, string>> {
  const table = `${quoteIdent(options.schema ?? 'public')}.${quoteIdent('cyclone_migrations')}`;
  const ownPool = options.pool
    ? undefined
    : new pg.Pool({ connectionString: options.connectionString, max: 1 });
  // An idle connection the server ends between statements must not crash the process.
  ownPool?.on('error', () => undefined);
  const pool = options.pool ?? ownPool!;
  try {
    const exists = await pool.query<{ present: boolean }>(
      'SELECT to_regclass($1) IS NOT NULL AS present',
      [table],
    );
    if (!exists.rows[0]?.present) return new Map();
    const { rows } = await pool.query<{ created_at: string; hash: string }>(
      `SELECT created_at, hash FROM ${table}`,
    );
    return new Map(rows.map((row) => [Number(row.created_at), row.hash]));
  } finally {
    await ownPool?.end();
  }
}
