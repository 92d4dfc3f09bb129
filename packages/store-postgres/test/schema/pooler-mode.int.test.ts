/**
 * `pooler: 'transaction'` on a direct connection, where what the store leaves on a session can be
 * read back: no named prepared statements, no LISTEN without a listen pool, LISTEN on the listen
 * pool when given, and options refused at the boundary. The same engine through a real PgBouncer
 * is the pooler suite's (`npm run test:pooler`).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, useTestDatabase } from '@cyclone/test-db';
import { connectStore } from '../../src/connect.js';
import { PostgresStore } from '../../src/store.js';
import { runOfJob } from '../../src/tables/runs/new-runs.js';

const db = useTestDatabase();
/** One connection, so the statements below read the session the store used. */
let session: pg.Pool;
beforeAll(() => {
  session = new pg.Pool({ connectionString: db.url, max: 1 });
  session.on('error', () => undefined); // the database's drop ends idle connections
});
afterAll(() => session.end());

async function preparedOnSession(): Promise<string[]> {
  const { rows } = await session.query<{ name: string }>(
    'SELECT name FROM pg_prepared_statements ORDER BY name',
  );
  return rows.map((r) => r.name);
}

describe("pooler: 'transaction'", () => {
  it('sends every statement unnamed, so no session holds a prepared statement', async () => {
    await session.query('DEALLOCATE ALL');
    const store = new PostgresStore({ pool: session, pooler: 'transaction' });
    await store.checkSchema();
    const [run] = await store.submit([runOfJob('pooled.kind', '{"n":1}')]);
    await store.claim({ kinds: ['pooled.kind'], limit: 1, workerId: 'w', leaseMs: 30_000 });
    expect((await store.getRun(run!.runId))?.state).toBe('running');
    expect(await preparedOnSession()).toEqual([]);
  });

  it('prepares named statements without it (the control of the test above)', async () => {
    await session.query('DEALLOCATE ALL');
    await new PostgresStore({ pool: session }).checkSchema();
    expect(await preparedOnSession()).toEqual(['cyclone:latest-migration']);
  });

  it('does not LISTEN without a listen pool: the subscription says it is not listening', async () => {
    const store = new PostgresStore({ pool: session, pooler: 'transaction' });
    const subscription = await store.subscribe({ stepsAvailable: () => undefined });
    expect(subscription.listening).toBe(false);
    const { rows } = await session.query('SELECT pg_listening_channels() AS channel');
    expect(rows).toEqual([]);
    await subscription.close();
  });

  it('LISTENs on listenConnectionString and wakes the subscriber', async () => {
    const { store, close } = connectStore({
      pool: session,
      pooler: 'transaction',
      listenConnectionString: db.url,
    });
    const kinds: string[] = [];
    const subscription = await store.subscribe({ stepsAvailable: (kind) => kinds.push(kind) });
    try {
      expect(subscription.listening).toBe(true);
      await store.submit([runOfJob('pooled.woken', 'null')]);
      await eventually(() => kinds.includes('pooled.woken'), 'the notification to arrive');
    } finally {
      await subscription.close();
      await close();
    }
  });
});

describe('connectStore refuses at the boundary', () => {
  it('a pooler mode it does not know, naming the option and the accepted values', () => {
    expect(() =>
      connectStore({ connectionString: db.url, pooler: 'statement' as never }, 'worker options'),
    ).toThrow(
      expect.objectContaining({
        code: 'VALIDATION',
        message: `invalid worker options: pooler: expected 'none' or 'transaction', got "statement"`,
      }),
    );
  });

  it('a listen URL that is not a PostgreSQL URL, naming listenConnectionString', () => {
    expect(() =>
      connectStore({ connectionString: db.url, listenConnectionString: 'http://db:5432/app' }),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_DATABASE_URL',
        where: 'store options.listenConnectionString',
      }),
    );
  });
});
