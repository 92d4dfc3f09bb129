import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AlreadyTerminalError, NotFoundError, ValidationError, workflow } from '@cyclone/core';
import { expectEventsFollowTable, useTestDatabase } from '@cyclone/test-db';
import { Client } from '../src/index.js';

const db = useTestDatabase();
let pool: pg.Pool;
let client: Client;
let checked = 0;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on('error', () => undefined);
  client = new Client({ pool });
});
afterEach(async () => {
  checked = await expectEventsFollowTable(pool, checked);
});
afterAll(async () => {
  await client.close();
  await pool.end();
});

const signalRows = async (runId: string) =>
  (
    await pool.query('SELECT name, payload, signal_id FROM cyclone_signals WHERE run_id = $1', [
      runId,
    ])
  ).rows;

/** The typed error `work` rejects with. */
async function rejection(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('client.signal', () => {
  it('submits a workflow with waits and completes a waitSignal with the payload', async () => {
    const def = workflow('approve')
      .waitSignal('approval', { signal: 'approved', maxWait: '1h' })
      .waitTimer('cool-off', { waitFor: '1h' })
      .build();
    const { runId } = await client.submit(def, {});
    expect(await client.signal(runId, 'approved', { by: 'ann' }, { id: 'a-1' })).toEqual({
      duplicate: false,
      consumedBy: 'approval',
    });
    expect(await client.output(runId, 'approval')).toEqual({
      payload: { by: 'ann' },
      timedOut: false,
    });
    expect(await client.signal(runId, 'approved', { by: 'bob' }, { id: 'a-1' })).toEqual({
      duplicate: true,
      consumedBy: 'approval',
    });
    expect(await signalRows(runId)).toEqual([
      { name: 'approved', payload: { by: 'ann' }, signal_id: 'a-1' },
    ]);
    const steps = await client.listSteps(runId);
    expect(steps.map((s) => [s.node, s.state])).toEqual([
      ['approval', 'completed'],
      ['cool-off', 'waiting_timer'],
    ]);
  });

  it('refuses bad input with a typed error naming the field, writing nothing', async () => {
    const def = workflow('bad-signal').waitSignal('w', { signal: 's' }).build();
    const { runId } = await client.submit(def);

    const notString = await rejection(client.signal(runId, 42 as unknown as string, null));
    expect(notString).toBeInstanceOf(ValidationError);
    expect((notString as ValidationError).issues[0]!.path).toBe('name');

    const badName = await rejection(client.signal(runId, 'has space', null));
    expect(badName).toBeInstanceOf(ValidationError);
    expect((badName as ValidationError).issues[0]!.path).toBe('name');

    const badPayload = await rejection(client.signal(runId, 's', { n: 10n }));
    expect(badPayload).toBeInstanceOf(ValidationError);
    expect((badPayload as ValidationError).issues[0]!.path).toBe('payload.n');

    const badId = await rejection(client.signal(runId, 's', 1, { id: 'a\u0000b' }));
    expect(badId).toBeInstanceOf(ValidationError);
    expect((badId as ValidationError).issues[0]!.path).toBe('id');

    expect(await signalRows(runId)).toEqual([]);
    expect((await client.listSteps(runId))[0]!.state).toBe('waiting_signal');
  });

  it('answers NotFoundError for an unknown run and AlreadyTerminalError for a terminal one', async () => {
    await expect(client.signal('not-a-uuid', 's', 1)).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      client.signal('0190c1a0-0000-7000-8000-000000000000', 's', 1),
    ).rejects.toBeInstanceOf(NotFoundError);

    const def = workflow('done-signal').waitSignal('w', { signal: 's' }).build();
    const { runId } = await client.submit(def);
    await client.signal(runId, 's', 'first');
    expect((await client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    await expect(client.signal(runId, 's', 'late')).rejects.toBeInstanceOf(AlreadyTerminalError);
    expect(await signalRows(runId)).toHaveLength(1);
  });
});
