import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '@cyclone/core';
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

const eventCount = async () =>
  Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM cyclone_events')).rows[0]!.n);

describe('operator input', () => {
  it('unknown run and node ids are NotFoundError naming what was not found; nothing changes', async () => {
    const { runId } = await client.enqueue('input.kind', null);
    const before = await eventCount();
    for (const call of [
      () => client.cancel('not-a-run'),
      () => client.cancel('00000000-0000-7000-8000-000000000000'),
      () => client.retryAll('not-a-run'),
      () => client.run('not-a-run').pause(),
      () => client.run('00000000-0000-7000-8000-000000000000').resume(),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ entity: 'run' });
    }
    const node = await client.retry(runId, 'no-such-node').catch((e: unknown) => e);
    expect(node).toMatchObject({ code: 'NOT_FOUND', entity: 'node', id: 'no-such-node' });
    expect(await eventCount()).toBe(before);
  });

  it('an invalid reason, limit, before or cursor is a ValidationError naming the field', async () => {
    const cases: [() => Promise<unknown>, string][] = [
      [() => client.listExhausted({ reason: 'exhausted' as never }), 'reason'],
      [() => client.listExhausted({ limit: 0 }), 'limit'],
      [() => client.listExhausted({ cursor: 'garbage' }), 'cursor'],
      [() => client.redrive({ reason: 'snooze' as never }), 'reason'],
      [() => client.redrive({ before: new Date('nope') }), 'before'],
    ];
    for (const [call, path] of cases) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.map((i) => i.path)).toContain(path);
    }
  });
});
