/**
 * The client refuses bad flow-control input with a ValidationError naming the field, and writes
 * nothing (every table read before and after). A run input without the field a key path names is
 * not bad input (decision 251): the run is accepted and its step has no key.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError, workflow, type WorkflowDefinition } from '@cyclone/core';
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

/** Row counts of every table a refused call could have written. */
async function tableCounts(): Promise<Record<string, number>> {
  const { rows } = await pool.query<{
    limits: number;
    fair: number;
    runs: number;
    steps: number;
    events: number;
  }>(
    `SELECT (SELECT count(*) FROM cyclone_limits)::int AS limits,
            (SELECT count(*) FROM cyclone_fair_shares)::int AS fair,
            (SELECT count(*) FROM cyclone_runs)::int AS runs,
            (SELECT count(*) FROM cyclone_steps)::int AS steps,
            (SELECT count(*) FROM cyclone_events)::int AS events`,
  );
  return rows[0]!;
}

/** Expects `call` to be refused with a ValidationError naming `path`, and nothing written. */
async function expectRefused(call: () => Promise<unknown>, path: string): Promise<void> {
  const before = await tableCounts();
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `a ValidationError naming ${path}`).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).issues.map((i) => i.path)).toContain(path);
  expect(await tableCounts()).toEqual(before);
}

/** A definition as a caller could hand it over without the builder (the client validates it). */
function definitionWith(options: Record<string, unknown>): WorkflowDefinition {
  const built = workflow('flow-input').task('charge', 'flow.charge').build();
  const node = { ...built.nodes[0]!, ...options };
  return { ...built, nodes: [node] } as unknown as WorkflowDefinition;
}

describe('flow-control input', () => {
  it('refuses a cap max below 1 or not a whole number, naming max; nothing is written', async () => {
    // A cap on the kind already, so a refused call that wrote would show as a changed row too.
    await client.setConcurrencyLimit({ kind: 'flow.kind', max: 3 });
    for (const max of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '2' as never]) {
      await expectRefused(() => client.setConcurrencyLimit({ kind: 'flow.kind', max }), 'max');
    }
    await expectRefused(
      () => client.setConcurrencyLimit({ kind: 'flow.kind', max: 2, perKey: 'yes' as never }),
      'perKey',
    );
    expect(await client.listConcurrencyLimits()).toEqual([
      { kind: 'flow.kind', max: 3, perKey: false, running: 0, waiting: 0 },
    ]);
  });

  it('refuses a rate limit whose limit is not a whole number from 1 or whose period is not a duration', async () => {
    for (const limit of [0, 2.5]) {
      await expectRefused(
        () => client.setRateLimit({ kind: 'flow.rate', limit, period: '1m' }),
        'limit',
      );
    }
    for (const period of ['soon', '', '0ms', '-1s', '31d', '1 minute', 0, -5, null]) {
      await expectRefused(
        () => client.setRateLimit({ kind: 'flow.rate', limit: 5, period: period as never }),
        'period',
      );
    }
    expect(await client.listRateLimits()).toEqual([]);
  });

  it('refuses a key path that is not a dot path, naming the node option', async () => {
    for (const path of ['customer id', 'customer..id', '.id', 'id.', '', 'a'.repeat(257), 42]) {
      expect(() =>
        workflow('flow-input')
          .task('charge', 'flow.charge', { concurrencyKey: path as never })
          .build(),
      ).toThrow(ValidationError);
      await expectRefused(
        () => client.submit(definitionWith({ concurrencyKey: path }), { customer: { id: 1 } }),
        'nodes.charge.concurrencyKey',
      );
    }
  });

  it('refuses a priority that is not a safe integer, at submit, enqueue and in a node', async () => {
    const order = workflow('flow-prio').task('charge', 'flow.charge').build();
    for (const priority of [1.5, 2 ** 53, -(2 ** 53), Number.NaN, '1' as never]) {
      await expectRefused(() => client.enqueue('flow.prio', null, { priority }), 'priority');
      await expectRefused(() => client.submit(order, null, { priority }), 'priority');
      await expectRefused(
        () => client.enqueueMany('flow.prio', [null, null], { priority }),
        'priority',
      );
      await expectRefused(
        () => client.submit(definitionWith({ priority }), null),
        'nodes.charge.priority',
      );
    }
  });

  it('refuses a submitted concurrency key that is empty or longer than 512 characters', async () => {
    for (const concurrencyKey of ['', 'k'.repeat(513), 42 as never]) {
      await expectRefused(
        () => client.enqueue('flow.key', null, { concurrencyKey }),
        'concurrencyKey',
      );
    }
  });

  it('accepts a run input without the key field: its step has no key', async () => {
    const charge = workflow('flow-keyed')
      .task('charge', 'flow.charge', { concurrencyKey: 'customer.id' })
      .build();
    const inputs = [{}, { customer: {} }, { customer: null }, { customer: { id: { nested: 1 } } }];
    const runs = await client.submitMany(charge, inputs);
    const keyed = await client.submit(charge, { customer: { id: 'c-9' } });
    const { rows } = await pool.query<{ run_id: string; concurrency_key: string | null }>(
      `SELECT run_id, concurrency_key FROM cyclone_steps WHERE run_id = ANY($1::uuid[])`,
      [[...runs.map((r) => r.runId), keyed.runId]],
    );
    const keys = Object.fromEntries(rows.map((r) => [r.run_id, r.concurrency_key]));
    for (const run of runs) expect(keys[run.runId]).toBeNull();
    expect(keys[keyed.runId]).toBe('c-9');
    // The submission's key does not stand in for a node path that found nothing.
    const { runId } = await client.submit(charge, {}, { concurrencyKey: 'tenant-1' });
    const step = await pool.query<{ concurrency_key: string | null }>(
      `SELECT concurrency_key FROM cyclone_steps WHERE run_id = $1`,
      [runId],
    );
    expect(step.rows[0]!.concurrency_key).toBeNull();
  });
});

describe('fair share input', () => {
  it('refuses a bad kind or weight, naming it, and writes nothing', async () => {
    await expectRefused(() => client.setFairShare({ kind: '' }), 'kind');
    await expectRefused(
      () => client.setFairShare({ kind: 'fair.in', weights: { a: 0 } }),
      'weights.a',
    );
    await expectRefused(
      () => client.setFairShare({ kind: 'fair.in', weights: { a: 1.5 } }),
      'weights.a',
    );
    await expectRefused(
      () => client.setFairShare({ kind: 'fair.in', weights: { a: 1_001 } }),
      'weights.a',
    );
    await expectRefused(
      () => client.setFairShare({ kind: 'fair.in', weights: 'a' as never }),
      'weights',
    );
    await expectRefused(
      () => client.setFairShare({ kind: 'fair.in', extra: 1 } as never),
      '(options)',
    );
    await expectRefused(() => client.removeFairShare(''), 'kind');
  });

  it('sets, lists and removes a fair share', async () => {
    await client.setFairShare({ kind: 'fair.ok', weights: { 'tenant-a': 3 } });
    await client.setFairShare({ kind: 'fair.plain' });
    expect(await client.listFairShares()).toEqual([
      { kind: 'fair.ok', weights: { 'tenant-a': 3 }, keys: 0 },
      { kind: 'fair.plain', weights: {}, keys: 0 },
    ]);
    expect(await client.removeFairShare('fair.ok')).toBe(true);
    expect(await client.removeFairShare('fair.ok')).toBe(false);
    expect((await client.listFairShares()).map((f) => f.kind)).toEqual(['fair.plain']);
  });
});
