import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCycloneError } from '@cyclone/core';
import { PostgresStore } from '@cyclone/store-postgres';
import { useTestDatabase } from '@cyclone/test-db';
import { Client } from '../src/index.js';

const db = useTestDatabase();
let pool: pg.Pool;
let client: Client;
let store: PostgresStore;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 6 });
  pool.on('error', () => undefined);
  client = new Client({ pool, waitPollInterval: '1h' }); // only a notification can wake a waiter
  store = new PostgresStore({ pool });
});
afterAll(async () => {
  await client.close();
  await pool.end();
});

/** Claims and completes the job's one step, as a worker would. */
async function finish(kind: string, output: unknown): Promise<void> {
  const [step] = await store.claim({ kinds: [kind], limit: 1, workerId: 'test', leaseMs: 10_000 });
  const accepted = await store.complete([
    { stepId: step!.id, claimToken: step!.claimToken, outputJson: JSON.stringify(output) },
  ]);
  expect(accepted.has(step!.id)).toBe(true);
}

describe('client.wait', () => {
  it('is woken by the notification of the run ending, and result returns the output', async () => {
    const { runId } = await client.enqueue('wait.one', { n: 1 });
    const waiting = client.wait(runId, { timeout: '10s' });
    await finish('wait.one', { ok: true });
    expect((await waiting).state).toBe('completed');
    expect(await client.result(runId)).toEqual({ 'wait.one': { ok: true } });
    expect(await client.output(runId, 'wait.one')).toEqual({ ok: true });
  });

  it('times one wait out without abandoning another wait on the same run', async () => {
    const { runId } = await client.enqueue('wait.two', null);
    const patient = client.wait(runId);
    await expect(client.wait(runId, { timeout: '50ms' })).rejects.toSatisfy(
      (error: unknown) =>
        isCycloneError(error, 'WAIT_TIMEOUT') && String(error).includes('still running'),
    );
    await finish('wait.two', 2);
    expect((await patient).state).toBe('completed');
  });

  it('says which run is unknown, for a malformed id too', async () => {
    for (const id of ['01a229e5-df75-7000-8d9c-0f8cffc21820', 'not-a-run']) {
      await expect(client.wait(id)).rejects.toSatisfy(
        (error: unknown) => isCycloneError(error, 'NOT_FOUND') && String(error).includes(id),
      );
    }
  });
});

describe('client.listRuns', () => {
  it('pages newest first with a cursor, filtered by state and workflow', async () => {
    const jobs = await client.enqueueMany('page.kind', [1, 2, 3, 4, 5]);
    const first = await client.listRuns({ workflow: 'page.kind', states: ['running'], limit: 3 });
    expect(first.runs.map((r) => r.id)).toEqual(
      jobs
        .slice(2)
        .reverse()
        .map((j) => j.runId),
    );
    const second = await client.listRuns({
      workflow: 'page.kind',
      states: ['running'],
      limit: 3,
      cursor: first.nextCursor!,
    });
    expect(second.runs.map((r) => r.id)).toEqual(
      jobs
        .slice(0, 2)
        .reverse()
        .map((j) => j.runId),
    );
    expect(second.nextCursor).toBeUndefined();
  });
});
