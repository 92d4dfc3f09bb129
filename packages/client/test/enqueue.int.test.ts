import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCycloneError } from '@cyclone/core';
import { useTestDatabase } from '@cyclone/test-db';
import { Client } from '../src/index.js';

const db = useTestDatabase();
let pool: pg.Pool;
let client: Client;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on('error', () => undefined);
  client = new Client({ pool });
});
afterAll(async () => {
  await client.close();
  await pool.end();
});

describe('enqueue scheduledAt', () => {
  it('stores an absolute time exactly as given', async () => {
    const at = new Date('2031-05-04T03:02:01.123Z');
    const { runId } = await client.enqueue('later.kind', null, { scheduledAt: at });
    const { rows } = await pool.query<{ scheduled_at: Date }>(
      'SELECT scheduled_at FROM cyclone_steps WHERE run_id = $1',
      [runId],
    );
    expect(rows[0]!.scheduled_at.toISOString()).toBe(at.toISOString());
  });

  it('counts a duration from the database clock', async () => {
    const { runId } = await client.enqueue('later.kind', null, { scheduledAt: '1h' });
    const { rows } = await pool.query<{ seconds: number }>(
      `SELECT extract(epoch FROM scheduled_at - now())::float AS seconds
       FROM cyclone_steps WHERE run_id = $1`,
      [runId],
    );
    expect(rows[0]!.seconds).toBeGreaterThan(3590);
    expect(rows[0]!.seconds).toBeLessThanOrEqual(3600);
  });

  it('refuses an invalid date or duration, naming the option', async () => {
    for (const scheduledAt of [new Date('nope'), '10 minutes'] as const) {
      await expect(
        client.enqueue('later.kind', null, { scheduledAt: scheduledAt as Date }),
      ).rejects.toSatisfy(
        (error: unknown) =>
          isCycloneError(error, 'VALIDATION') && String(error).includes('scheduledAt'),
      );
    }
  });
});
