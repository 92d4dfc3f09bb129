import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { useTestDatabase } from '@cyclone/test-db';
import { defaultMigrationsFolder } from '../../src/migration/migrate.js';

/**
 * Sets up a test of one migration: a pool on the file's test database, and a copy of the shipped
 * migrations without `tag` and those after it, to migrate a schema to the state before it. Call
 * at the top of a test file.
 */
export function useMigrationsBefore(tag: string) {
  const db = useTestDatabase();
  let pool: pg.Pool | undefined;
  let folder: string | undefined;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    pool.on('error', () => undefined);
    const work = mkdtempSync(path.join(tmpdir(), `cyclone-before-${tag}-`));
    folder = path.join(work, 'migrations');
    cpSync(defaultMigrationsFolder(), folder, { recursive: true });
    const journalFile = path.join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as {
      entries: { tag: string }[];
    };
    const cut = journal.entries.findIndex((e) => e.tag === tag);
    expect(cut).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, cut);
    writeFileSync(journalFile, JSON.stringify(journal));
  });
  afterAll(async () => {
    await pool?.end();
    if (folder) rmSync(path.dirname(folder), { recursive: true, force: true });
  });
  return {
    get pool() {
      return pool!;
    },
    /** The migrations folder that stops before `tag`. */
    get before() {
      return folder!;
    },
  };
}
