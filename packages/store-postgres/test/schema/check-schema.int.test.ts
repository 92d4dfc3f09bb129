import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCycloneError } from '@cyclone/core';
import { expectEventsFollowTable, useTestDatabase } from '@cyclone/test-db';
import { connectStore } from '../../src/connect.js';
import { shippedMigrations } from '../../src/migration/migration-journal.js';
import { defaultMigrationsFolder } from '../../src/migration/migrate.js';
import { PostgresStore } from '../../src/store.js';
import { runOfJob } from '../../src/tables/runs/new-runs.js';

const db = useTestDatabase();
let pool: pg.Pool;
beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on('error', () => undefined); // the database's drop ends idle connections
});
afterAll(() => pool.end());

describe('checkSchema', () => {
  it('passes on a database with every shipped migration', async () => {
    await expect(new PostgresStore({ pool }).checkSchema()).resolves.toBeUndefined();
  });

  it('names every migration of a schema that was never migrated', async () => {
    const error = await new PostgresStore({ pool, schema: 'empty_tenant' })
      .checkSchema()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SCHEMA_NOT_MIGRATED', schema: 'empty_tenant' });
    expect((error as { missing: string[] }).missing[0]).toBe('0000_init');
    expect(String((error as Error).message)).toContain('cyclone migrate');
  });

  it('names the newest migration when the database lacks it', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        'DELETE FROM cyclone_migrations WHERE created_at = (SELECT max(created_at) FROM cyclone_migrations)',
      );
      const store = new PostgresStore({
        pool: { query: client.query.bind(client), options: {} } as unknown as pg.Pool,
      });
      await expect(store.checkSchema()).rejects.toMatchObject({
        code: 'SCHEMA_NOT_MIGRATED',
        missing: [shippedMigrations(defaultMigrationsFolder()).at(-1)!.tag],
      });
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('fails with DATABASE_UNREACHABLE, the driver error as cause, when nothing listens', async () => {
    const { store, close } = connectStore({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
    });
    const error = await store.checkSchema().catch((e: unknown) => e);
    await close();
    expect(error).toMatchObject({ code: 'DATABASE_UNREACHABLE' });
    expect((error as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
    expect(isCycloneError(error, 'DATABASE_UNREACHABLE')).toBe(true);
  });
});

describe('driver errors at the store boundary', () => {
  it('refuses a URL that is not a PostgreSQL URL before connecting', () => {
    expect(() =>
      connectStore({ connectionString: 'http://db:5432/app' }, 'worker options'),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_DATABASE_URL',
        where: 'worker options.connectionString',
      }),
    );
    expect(() => connectStore({ connectionString: 'db.internal' })).toThrow(
      expect.objectContaining({ code: 'INVALID_DATABASE_URL' }),
    );
  });

  it('maps a missing table to SCHEMA_NOT_MIGRATED with the pg error (42P01) as cause', async () => {
    const store = new PostgresStore({ pool, schema: 'empty_tenant' });
    const error = await store
      .getRun('00000000-0000-4000-8000-000000000000')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SCHEMA_NOT_MIGRATED' });
    expect((error as Error).cause).toMatchObject({ code: '42P01' });
  });

  it('maps any other database error to DATABASE_QUERY_FAILED with its SQLSTATE', async () => {
    const store = new PostgresStore({ pool });
    const run = runOfJob('bad.input', '{not json');
    await expect(store.submit([run])).rejects.toMatchObject({
      code: 'DATABASE_QUERY_FAILED',
      sqlState: '22P02',
      operation: 'submit',
    });
  });
});

describe('expectEventsFollowTable', () => {
  it('fails on an event that is not a row of the table, naming the event', async () => {
    const store = new PostgresStore({ pool });
    const [submitted] = await store.submit([runOfJob('table.check', 'null')]);
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO cyclone_events (run_id, type, from_state, to_state, trigger)
       VALUES ($1, 'run_completed', 'failed', 'completed', 'complete') RETURNING id`,
      [submitted!.runId],
    );
    try {
      await expect(expectEventsFollowTable(pool)).rejects.toThrow(
        `event ${rows[0]!.id} run_completed of run ${submitted!.runId}: failed -> completed by complete`,
      );
    } finally {
      await pool.query('DELETE FROM cyclone_events WHERE id = $1', [rows[0]!.id]);
    }
    // With the offending row gone the check passes again.
    await expect(expectEventsFollowTable(pool)).resolves.toBeTypeOf('number');
  });
});
