import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '@cyclone/test-db';
import { migrate } from '../../src/migration/migrate.js';
import { PostgresStore } from '../../src/store.js';

const db = useTestDatabase();
const role = `cyclone_dml_${randomBytes(4).toString('hex')}`;
let owner: pg.Pool;

beforeAll(async () => {
  owner = new pg.Pool({ connectionString: db.url, max: 2 });
  owner.on('error', () => undefined); // the database's drop ends idle connections
  // A service role with data rights only: no CREATE on the database or on the schema.
  await owner.query(`CREATE ROLE ${role} LOGIN`);
  await owner.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
  await owner.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
  await owner.query(
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`,
  );
  await owner.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
});
afterAll(async () => {
  await owner.query(`DROP OWNED BY ${role}`);
  await owner.query(`DROP ROLE ${role}`);
  await owner.end();
});

function roleUrl(): string {
  const url = new URL(db.url);
  url.username = role;
  url.password = '';
  return url.toString();
}

describe('migrate() by a role without DDL rights', () => {
  it('cannot create a schema (the role really is least-privilege)', async () => {
    const pool = new pg.Pool({ connectionString: roleUrl(), max: 1 });
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
    expect(await migrate({ connectionString: roleUrl() })).toEqual({ applied: 0 });
  });

  it('passes the schema check and serves the store', async () => {
    const pool = new pg.Pool({ connectionString: roleUrl(), max: 2 });
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
