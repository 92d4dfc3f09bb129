import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { CycloneError } from '@cyclone/core';
import { Worker } from '../../src/index.js';
import { testLogger } from '../engine.js';
import { useTransitionEngine } from '../transitions/helpers.js';

const engine = useTransitionEngine();

async function startError(connectionString: string): Promise<unknown> {
  const worker = new Worker({
    connectionString,
    logger: testLogger,
    handlers: { 'start.never': () => null },
  });
  try {
    await worker.start();
  } catch (error) {
    return error;
  } finally {
    await worker.stop({ timeout: '1s' });
  }
  throw new Error('start() resolved');
}

describe('Worker.start() on a database it cannot use', () => {
  it('rejects with a typed error when the database is unreachable', async () => {
    const error = await startError('postgres://postgres@127.0.0.1:1/postgres');
    expect(error).toBeInstanceOf(CycloneError);
    expect((error as Error).message).toMatch(/cannot start|unreachable|connect/i);
  });

  it('rejects with a typed error when the database is not migrated', async () => {
    const name = `cyclone_empty_${randomBytes(4).toString('hex')}`;
    await engine.query(`CREATE DATABASE ${name}`);
    try {
      const url = new URL(engine.url);
      url.pathname = `/${name}`;
      const error = await startError(url.toString());
      expect(error).toBeInstanceOf(CycloneError);
      expect((error as Error).message).toMatch(/migrat|schema|cyclone_steps/i);
    } finally {
      await engine.query(`DROP DATABASE ${name} WITH (FORCE)`);
    }
  });
});

describe('Worker.start() when registering fails', () => {
  it('rejects, gives back the LISTEN connection it opened meanwhile, and may be started again', async () => {
    await engine.query(`CREATE FUNCTION start_fail_refuse() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'registration refused'; END $$`);
    await engine.query(`CREATE TRIGGER start_fail_refuse BEFORE INSERT ON cyclone_workers
      FOR EACH ROW EXECUTE FUNCTION start_fail_refuse()`);
    // A pool of its own: a connection left listening would stay checked out of it.
    const pool = new pg.Pool({ connectionString: engine.url, max: 5 });
    const worker = new Worker({
      pool,
      logger: testLogger,
      handlers: { 'start.refused': () => null },
    });
    try {
      await expect(worker.start()).rejects.toThrow(/registration refused/);
      expect(pool.totalCount - pool.idleCount).toBe(0);
      await engine.query('DROP TRIGGER start_fail_refuse ON cyclone_workers');
      await worker.start();
      expect(
        await engine.query('SELECT 1 FROM cyclone_workers WHERE id = $1', [worker.id]),
      ).toHaveLength(1);
    } finally {
      await worker.stop({ timeout: '1s' });
      await pool.end();
      await engine.query('DROP TRIGGER IF EXISTS start_fail_refuse ON cyclone_workers');
      await engine.query('DROP FUNCTION start_fail_refuse()');
    }
  });
});
