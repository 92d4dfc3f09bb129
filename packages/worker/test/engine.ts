import pg from 'pg';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { expectEventsFollowTable, useTestDatabase } from '@cyclone/test-db';
import { Client } from '@cyclone/client';
import { PostgresStore } from '@cyclone/store-postgres';
import { Worker, type WorkerOptions } from '../src/index.js';

/** A silent logger for tests; set CYCLONE_TEST_LOG=debug to see the worker's logs. */
export const testLogger = pino({ level: process.env.CYCLONE_TEST_LOG ?? 'silent' });

/**
 * A fresh database for the test file, with a pool, a client, a store and a way to start workers
 * that are stopped after each test. After each test, every event it recorded is checked against
 * core's transition table (`expectEventsFollowTable`).
 */
export function useEngine() {
  const db = useTestDatabase();
  let pool: pg.Pool | undefined;
  let client: Client | undefined;
  let store: PostgresStore | undefined;
  const workers: Worker[] = [];
  // Events already checked against core's table; each test checks only what it added.
  let checkedEventId = 0;

  beforeAll(() => {
    pool = new pg.Pool({ connectionString: db.url, max: 10 });
    // The database is dropped (ending its connections) after the pool has closed, but pg may
    // still hold one briefly: that error is expected at teardown.
    pool.on('error', () => undefined);
    client = new Client({ pool });
    store = new PostgresStore({ pool });
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop({ timeout: '1s' })));
    // Every recorded (from, to, trigger) must be a row of core's transition table.
    checkedEventId = await expectEventsFollowTable(pool!, checkedEventId);
  });
  afterAll(async () => {
    await client?.close();
    await pool?.end();
  });

  return {
    get url() {
      return db.url;
    },
    get pool() {
      return pool!;
    },
    get client() {
      return client!;
    },
    get store() {
      return store!;
    },
    /** Starts a worker on the test database (its own pool unless one is given). */
    async startWorker(options: Omit<WorkerOptions, 'connectionString'>): Promise<Worker> {
      const worker = new Worker({
        connectionString: db.url,
        logger: testLogger,
        pollInterval: '100ms',
        ...options,
      });
      workers.push(worker);
      await worker.start();
      return worker;
    },
    async query<R extends pg.QueryResultRow = Record<string, unknown>>(
      text: string,
      values: unknown[] = [],
    ): Promise<R[]> {
      return (await pool!.query<R>(text, values)).rows;
    },
  };
}

export { eventually } from '@cyclone/test-db';

/** A promise with its resolve exposed: lets a test hold a handler until it says so. */
export function gate<T = void>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
