import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { hasMigrations, migrationsRecord, withClient } from './admin.js';
import { quoteIdent } from './names.js';
import { createTestDatabase, testDbContext, useTestDatabase } from './index.js';
import { migrationsFolder } from './paths.js';

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
