import { beforeAll, describe, expect, it } from 'vitest';
import { isCycloneError, StepFencedError, workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { eventually, gate } from '../engine.js';
import { eventRows, runRow, stepReaches, stepRow, useTransitionEngine } from './helpers.js';

const engine = useTransitionEngine();

/** The application's table: no unique key, so a second write would show as a second row. */
beforeAll(async () => {
  await engine.query('CREATE TABLE app_orders (step_id uuid NOT NULL, order_id text NOT NULL)');
});

async function ordersOf(stepId: string): Promise<number> {
  const [row] = await engine.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM app_orders WHERE step_id = $1',
    [stepId],
  );
  return row!.n;
}

async function jobsOfKind(kind: string): Promise<number> {
  const [row] = await engine.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM cyclone_steps WHERE kind = $1',
    [kind],
  );
  return row!.n;
}

const insertOrder = 'INSERT INTO app_orders (step_id, order_id) VALUES ($1, $2)';

describe('ctx.transaction', () => {
  it("commits the handler's row and the step's completion in one transaction, and the run goes on", async () => {
    const order = workflow('txn-order')
      .task('record', 'txn.record')
      .task('confirm', 'txn.confirm', { dependsOn: ['record'] })
      .build();
    await engine.startWorker({
      handlers: {
        'txn.record': (ctx) =>
          ctx.transaction(async (tx) => {
            await tx.query(insertOrder, [ctx.stepId, (ctx.input as { orderId: string }).orderId]);
            return { recorded: true };
          }),
        'txn.confirm': (ctx) => ctx.deps,
      },
      workflows: [order],
    });
    const { runId } = await engine.client.submit(order, { orderId: 'o-1' });
    expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({
      confirm: { record: { recorded: true } },
    });
    const record = await stepRow(engine, runId, 'record');
    expect(record.state).toBe('completed');
    expect(record.output).toEqual({ recorded: true });
    expect(record.attempts).toBe(1);
    expect(await ordersOf(record.id)).toBe(1);
    // The same transaction wrote both rows: they carry the same transaction id.
    const [xids] = await engine.query<{ order_xid: string; step_xid: string }>(
      `SELECT (SELECT xmin::text FROM app_orders WHERE step_id = $1) AS order_xid,
              (SELECT xmin::text FROM cyclone_steps WHERE id = $1) AS step_xid`,
      [record.id],
    );
    expect(xids!.order_xid).toBe(xids!.step_xid);
    const types = (await eventRows(engine, runId)).map((e) => `${e.node}:${e.type}`);
    expect(types).toContain('record:step_completed');
    expect(types).toContain('confirm:step_ready');
    expect((await runRow(engine, runId)).state).toBe('completed');
  });

  it('rolls the row back and rejects with STEP_FENCED when the run is cancelled while fn runs', async () => {
    const inside = gate();
    const proceed = gate();
    const rejected: unknown[] = [];
    await engine.startWorker({
      handlers: {
        'txn.cancelled': async (ctx) => {
          try {
            return await ctx.transaction(async (tx) => {
              await tx.query(insertOrder, [ctx.stepId, 'o-2']);
              inside.open();
              await proceed.promise;
              return 'recorded';
            });
          } catch (error) {
            rejected.push(error);
            throw error;
          }
        },
      },
    });
    const { runId } = await engine.client.enqueue('txn.cancelled', null);
    await inside.promise;
    await engine.client.cancel(runId);
    proceed.open();
    await eventually(async () => rejected.length > 0 || undefined, 'ctx.transaction to reject');
    expect(rejected[0]).toBeInstanceOf(StepFencedError);
    expect(isCycloneError(rejected[0], 'STEP_FENCED')).toBe(true);
    const step = await stepRow(engine, runId, 'txn.cancelled');
    expect(step.state).toBe('cancelled');
    expect(step.output).toBeNull();
    expect(await ordersOf(step.id)).toBe(0);
    expect((await runRow(engine, runId)).state).toBe('cancelled');
  });

  it("rolls fn's writes back when it throws, retries the attempt, and keeps the one row of the success", async () => {
    const flaky = workflow('txn-flaky')
      .task('record', 'txn.flaky', { maxAttempts: 3, backoff: { initial: '10ms', jitter: 0 } })
      .build();
    await engine.startWorker({
      handlers: {
        'txn.flaky': (ctx) =>
          ctx.transaction(async (tx) => {
            await tx.query(insertOrder, [ctx.stepId, `attempt-${ctx.attempt}`]);
            if (ctx.attempt === 1) throw new Error('payment gateway unavailable');
            return { attempt: ctx.attempt };
          }),
      },
      workflows: [flaky],
    });
    const { runId } = await engine.client.submit(flaky, null);
    expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({
      record: { attempt: 2 },
    });
    const step = await stepRow(engine, runId, 'record');
    expect(step.attempts).toBe(2);
    expect(
      await engine.query('SELECT order_id FROM app_orders WHERE step_id = $1', [step.id]),
    ).toEqual([{ order_id: 'attempt-2' }]);
    const failed = (await eventRows(engine, runId)).filter(
      (e) => e.type === 'step_retry_scheduled',
    );
    expect(failed).toHaveLength(1);
  });

  it('creates work enqueued or submitted with { tx } exactly when the step completes', async () => {
    const child = workflow('txn-child').task('only', 'txn.child-task').build();
    // A second client on a pool of its own: { tx } puts its writes in the handler's transaction.
    const client = new Client({ connectionString: engine.url });
    try {
      await engine.startWorker({
        handlers: {
          'txn.spawn': (ctx) =>
            ctx.transaction(async (tx) => {
              const tag = ctx.input as string;
              await client.enqueue('txn.email', { tag }, { tx });
              await client.submit(child, { tag }, { tx });
              if (tag === 'rolled-back') throw new Error('refused after spawning');
              return tag;
            }),
        },
      });
      const kept = await engine.client.enqueue('txn.spawn', 'kept');
      const lost = await engine.client.enqueue('txn.spawn', 'rolled-back', { maxAttempts: 1 });
      expect(await engine.client.result(kept.runId, { timeout: '10s' })).toEqual({
        'txn.spawn': 'kept',
      });
      await stepReaches(engine, lost.runId, 'txn.spawn', 'discarded');
      const spawned = await engine.query<{ tag: string; kind: string }>(
        `SELECT r.input->>'tag' AS tag, s.kind FROM cyclone_steps s JOIN cyclone_runs r ON r.id = s.run_id
         WHERE s.kind IN ('txn.email', 'txn.child-task') ORDER BY s.kind`,
      );
      expect(spawned).toEqual([
        { tag: 'kept', kind: 'txn.child-task' },
        { tag: 'kept', kind: 'txn.email' },
      ]);
    } finally {
      await client.close();
    }
  });

  it('leaves the step completed when the handler throws after its transaction committed', async () => {
    await engine.startWorker({
      handlers: {
        'txn.throws-after': async (ctx) => {
          await ctx.transaction(async (tx) => {
            await tx.query(insertOrder, [ctx.stepId, 'after']);
            return 'committed';
          });
          throw new Error('thrown after the commit');
        },
      },
    });
    const { runId } = await engine.client.enqueue('txn.throws-after', null);
    expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({
      'txn.throws-after': 'committed',
    });
    const step = await stepRow(engine, runId, 'txn.throws-after');
    expect([step.state, step.attempts, step.error]).toEqual(['completed', 1, null]);
    expect(await ordersOf(step.id)).toBe(1);
  });

  it('refuses a second transactional completion in the same attempt', async () => {
    const seen: unknown[] = [];
    await engine.startWorker({
      handlers: {
        'txn.twice': async (ctx) => {
          const first = await ctx.transaction(() => 'first');
          await ctx.transaction(() => 'second').catch((error: unknown) => seen.push(error));
          return first;
        },
      },
    });
    const { runId } = await engine.client.enqueue('txn.twice', null);
    expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({ 'txn.twice': 'first' });
    // The run completes when the first transaction commits, which can be before the handler has
    // made its second call: wait for the refusal rather than read it at once.
    const refusal = await eventually(() => seen[0], 'the second ctx.transaction to be refused');
    expect(String(refusal)).toContain('an attempt completes its step once');
  });

  it('works with pooler: transaction (unnamed statements)', async () => {
    await engine.startWorker({
      pooler: 'transaction',
      handlers: {
        'txn.pooled': (ctx) =>
          ctx.transaction(async (tx) => {
            await tx.query(insertOrder, [ctx.stepId, 'pooled']);
            return 'pooled';
          }),
      },
    });
    const { runId } = await engine.client.enqueue('txn.pooled', null);
    expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({
      'txn.pooled': 'pooled',
    });
    expect(await ordersOf((await stepRow(engine, runId, 'txn.pooled')).id)).toBe(1);
  });
});

describe('ctx.completeWithin', () => {
  it("completes the step in the application's own transaction, which commits both", async () => {
    await engine.startWorker({
      handlers: {
        'within.commit': async (ctx) => {
          const client = await engine.pool.connect();
          try {
            await client.query('BEGIN');
            await client.query(insertOrder, [ctx.stepId, 'within']);
            const output = await ctx.completeWithin(client, { within: true });
            await client.query('COMMIT');
            return output;
          } finally {
            client.release();
          }
        },
      },
    });
    const { runId } = await engine.client.enqueue('within.commit', null);
    expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({
      'within.commit': { within: true },
    });
    const step = await stepRow(engine, runId, 'within.commit');
    expect([step.state, step.attempts]).toEqual(['completed', 1]);
    expect(await ordersOf(step.id)).toBe(1);
  });

  it('leaves the attempt to the handler when the application rolls back', async () => {
    const flaky = workflow('within-flaky')
      .task('record', 'within.rollback', {
        maxAttempts: 3,
        backoff: { initial: '10ms', jitter: 0 },
      })
      .build();
    await engine.startWorker({
      handlers: {
        'within.rollback': async (ctx) => {
          const client = await engine.pool.connect();
          try {
            await client.query('BEGIN');
            await client.query(insertOrder, [ctx.stepId, `attempt-${ctx.attempt}`]);
            await ctx.completeWithin(client, ctx.attempt);
            if (ctx.attempt === 1) {
              await client.query('ROLLBACK');
              throw new Error('rolled back after completing within');
            }
            await client.query('COMMIT');
            return ctx.attempt;
          } finally {
            client.release();
          }
        },
      },
      workflows: [flaky],
    });
    const { runId } = await engine.client.submit(flaky, null);
    expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({ record: 2 });
    const step = await stepRow(engine, runId, 'record');
    expect(
      await engine.query('SELECT order_id FROM app_orders WHERE step_id = $1', [step.id]),
    ).toEqual([{ order_id: 'attempt-2' }]);
  });
});
