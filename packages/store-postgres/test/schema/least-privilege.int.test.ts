import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRole, type TestRole, useTestDatabase } from '@cyclone/test-db';
import { migrate } from '../../src/migration/migrate.js';
import { PostgresStore } from '../../src/store.js';

const db = useTestDatabase();
let role: TestRole;

beforeAll(async () => {
  // A service role with data rights only: no CREATE on the database or on the schema. It logs in
  // with a password, so this works on a server that asks for one as on a trust-auth one.
  role = await createTestRole(db.url);
  const owner = new pg.Client({ connectionString: db.url });
  await owner.connect();
  try {
    await owner.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
    await owner.query(`GRANT USAGE ON SCHEMA public TO ${role.name}`);
    await owner.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role.name}`,
    );
    await owner.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role.name}`);
  } finally {
    await owner.end();
  }
});
afterAll(() => role?.drop());

describe('migrate() by a role without DDL rights', () => {
  it('cannot create a schema (the role really is least-privilege)', async () => {
    const pool = new pg.Pool({ connectionString: role.url, max: 1 });
    pool.on('error', () => undefined); // the database's drop ends idle connections
    try {
      await expect(pool.query('CREATE SCHEMA IF NOT EXISTS public')).rejects.toMatchObject({
        code: '42501',
      });
    } finally {
      await pool.end();
    }
  });

  it('succeeds with nothing applied when the owner has migrated already', async () => {
    expect(await migrate({ connectionString: role.url })).toEqual({ applied: 0 });
  });

  it('passes the schema check and serves the store', async () => {
    const pool = new pg.Pool({ connectionString: role.url, max: 2 });
    pool.on('error', () => undefined); // the database's drop ends idle connections
    try {
      const store = new PostgresStore({ pool });
      await expect(store.checkSchema()).resolves.toBeUndefined();
      expect(await store.listRuns()).toEqual({ runs: [] });
    } finally {
      await pool.end();
    }
  });
});
