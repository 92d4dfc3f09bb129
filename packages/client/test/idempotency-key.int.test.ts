import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCycloneError, workflow, type ValidationError } from '@cyclone/core';
import { useTestDatabase } from '@cyclone/test-db';
import { Client, MaxIdempotencyKeyLength } from '../src/index.js';

const db = useTestDatabase();
let pool: pg.Pool;
let client: Client;

const flow = workflow('keyed').task('only', 'keyed.only').build();
const EXPECTED = `expected an idempotency key: a non-empty string without U+0000 or lone surrogates, at most ${MaxIdempotencyKeyLength} characters`;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on('error', () => undefined);
  client = new Client({ pool });
});
afterAll(async () => {
  await client.close();
  await pool.end();
});

async function runCount(): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM cyclone_runs');
  return rows[0]!.n;
}

async function storedKey(runId: string): Promise<string | null> {
  const { rows } = await pool.query<{ idempotency_key: string | null }>(
    'SELECT idempotency_key FROM cyclone_runs WHERE id = $1',
    [runId],
  );
  return rows[0]!.idempotency_key;
}

/** Resolves to the ValidationError `promise` rejects with; fails the test on anything else. */
async function validationError(promise: Promise<unknown>): Promise<ValidationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isCycloneError(error, 'VALIDATION'), String(error)).toBe(true);
  return error as ValidationError;
}

describe('idempotency keys that Postgres text cannot hold unchanged', () => {
  const illFormed = [
    ['U+0000', 'k\u0000', 'contains U+0000 at index 1'],
    ['a lone high surrogate', 'k\uD800', 'contains a lone surrogate U+D800 at index 1'],
    ['the last high surrogate', 'k\uDBFF', 'contains a lone surrogate U+DBFF at index 1'],
    ['a lone low surrogate', '\uDC00k', 'contains a lone surrogate U+DC00 at index 0'],
    ['a reversed pair', '\uDE00\uD83D', 'contains a lone surrogate U+DE00 at index 0'],
  ] as const;

  it.each(illFormed)(
    'submit refuses a key with %s, naming idempotencyKey, and writes nothing',
    async (_, key, problem) => {
      const before = await runCount();
      const error = await validationError(client.submit(flow, null, { idempotencyKey: key }));
      expect(error.issues).toEqual([
        { path: 'idempotencyKey', message: `${problem}, ${EXPECTED}` },
      ]);
      expect(await runCount()).toBe(before);
    },
  );

  it.each(illFormed)('enqueue, submitMany and enqueueMany refuse a key with %s', async (_, key) => {
    const before = await runCount();
    for (const attempt of [
      client.enqueue('keyed.job', null, { idempotencyKey: key }),
      client.submitMany(flow, [1, 2], { idempotencyKey: key }),
      client.enqueueMany('keyed.job', [1, 2], { idempotencyKey: key }),
    ]) {
      const error = await validationError(attempt);
      expect(error.issues[0]?.path).toBe('idempotencyKey');
      expect(error.message).toContain(EXPECTED);
    }
    expect(await runCount()).toBe(before);
  });

  it('keeps U+FFFD distinct: it is a key of its own, not what a lone surrogate collides with', async () => {
    const replacement = await client.submit(flow, null, { idempotencyKey: 'k\uFFFD' });
    expect(replacement.created).toBe(true);
    expect(await storedKey(replacement.runId)).toBe('k\uFFFD');
    // Before the check, both of these reached the driver as 'k\uFFFD': one returned the run above
    // with created: false, the other threw "was not inserted and no run holds its idempotency key".
    await validationError(client.submit(flow, null, { idempotencyKey: 'k\uD800' }));
    await validationError(client.submit(flow, null, { idempotencyKey: 'k\uDBFF' }));
    const again = await client.submit(flow, null, { idempotencyKey: 'k\uFFFD' });
    expect(again).toEqual({ runId: replacement.runId, created: false });
  });
});

describe('idempotency keys that are well-formed', () => {
  it('stores a key with a surrogate pair verbatim and matches it exactly', async () => {
    const key = 'order-\uD83D\uDE00-42';
    const first = await client.submit(flow, null, { idempotencyKey: key });
    expect(first.created).toBe(true);
    expect(await storedKey(first.runId)).toBe(key);
    expect(await client.submit(flow, null, { idempotencyKey: key })).toEqual({
      runId: first.runId,
      created: false,
    });
    const other = await client.submit(flow, null, { idempotencyKey: 'order-\uD83D\uDE01-42' });
    expect(other.created).toBe(true);
  });

  it('counts the length in characters: 512 emoji fit, 513 characters do not', async () => {
    const emoji = '\uD83D\uDE00'.repeat(MaxIdempotencyKeyLength);
    const fits = await client.submit(flow, null, { idempotencyKey: emoji });
    expect(await storedKey(fits.runId)).toBe(emoji);
    const error = await validationError(
      client.enqueue('keyed.job', null, {
        idempotencyKey: 'x'.repeat(MaxIdempotencyKeyLength + 1),
      }),
    );
    expect(error.issues).toEqual([
      {
        path: 'idempotencyKey',
        message: `has ${MaxIdempotencyKeyLength + 1} characters, ${EXPECTED}`,
      },
    ]);
  });

  it('refuses an empty key', async () => {
    const error = await validationError(client.submit(flow, null, { idempotencyKey: '' }));
    expect(error.issues).toEqual([{ path: 'idempotencyKey', message: `is empty, ${EXPECTED}` }]);
  });
});

describe('other strings bound for text columns', () => {
  it('enqueue refuses a kind with U+0000 or a lone surrogate, naming kind', async () => {
    const before = await runCount();
    for (const [kind, problem] of [
      ['job\u0000', 'contains U+0000 at index 3'],
      ['job\uD800', 'contains a lone surrogate U+D800 at index 3'],
    ] as const) {
      const error = await validationError(client.enqueue(kind, null));
      expect(error.issues).toEqual([
        {
          path: 'kind',
          message: `${problem}, expected a handler kind: a non-empty string without U+0000 or lone surrogates, at most 128 characters`,
        },
      ]);
    }
    expect(await runCount()).toBe(before);
  });

  it('refuses a node name or workflow filter Postgres text cannot hold instead of failing the query', async () => {
    const { runId } = await client.submit(flow, null);
    const output = await validationError(client.output(runId, 'only\u0000'));
    expect(output.issues[0]?.path).toBe('node');
    const list = await validationError(client.listRuns({ workflow: 'keyed\uDFFF' }));
    expect(list.issues[0]?.path).toBe('workflow');
    // A well-formed name that matches nothing is simply not there.
    await expect(client.output(runId, 'no\uFFFDnode')).rejects.toSatisfy((e: unknown) =>
      isCycloneError(e, 'NOT_FOUND'),
    );
    expect((await client.listRuns({ workflow: 'keyed\uFFFD' })).runs).toEqual([]);
  });
});
