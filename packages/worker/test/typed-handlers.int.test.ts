import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { job, typed, workflow } from '@cyclone/core';
import { handlersFor, jobHandler } from '../src/index.js';
import { eventually, useEngine } from './engine.js';

const engine = useEngine();

const order = workflow('typed-order', { input: z.object({ orderId: z.string() }) })
  .task('load', 'typed.load', { output: z.array(z.object({ sku: z.string() })) })
  .task('count', 'typed.count', { dependsOn: ['load'], output: z.number() })
  .fanOut('pack', 'typed.pack', { from: 'load', output: typed<string>() })
  .task('ship', 'typed.ship', { dependsOn: ['count', 'pack'], output: z.string() })
  .build();

describe('handlers registered against a definition', () => {
  it('run the workflow, each handler seeing its input, dependencies and item', async () => {
    await engine.startWorker({
      workflows: [order],
      handlers: handlersFor(order, {
        load: (ctx) => [{ sku: `${ctx.input.orderId}-a` }, { sku: `${ctx.input.orderId}-b` }],
        count: (ctx) => ctx.deps.load.length,
        pack: (ctx) => `box:${ctx.item.sku}:${ctx.index}`,
        ship: (ctx) => `${ctx.deps.count} items in ${ctx.deps.pack.join(', ')}`,
      }),
    });
    const { runId } = await engine.client.submit(order, { orderId: 'o1' });
    expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({
      ship: '2 items in box:o1-a:0, box:o1-b:1',
    });
  });

  it('dispatch by node when nodes of one workflow, or of several, share a kind', async () => {
    const twice = workflow('shared-kind')
      .task('a', 'shared.k')
      .task('b', 'shared.k', { dependsOn: ['a'] })
      .build();
    const other = workflow('shared-kind-2').task('c', 'shared.k').build();
    await engine.startWorker({
      workflows: [twice, other],
      handlers: [
        handlersFor(twice, { a: () => 'from a', b: (ctx) => `b after ${String(ctx.deps.a)}` }),
        handlersFor(other, { c: () => 'from c' }),
        { 'shared.k': (ctx) => `job ${String(ctx.input)}` },
      ],
    });
    const first = await engine.client.submit(twice, {});
    const second = await engine.client.submit(other, {});
    const job = await engine.client.enqueue('shared.k', 7);
    expect(await engine.client.result(first.runId, { timeout: '10s' })).toEqual({
      b: 'b after from a',
    });
    expect(await engine.client.result(second.runId, { timeout: '10s' })).toEqual({ c: 'from c' });
    expect(await engine.client.result(job.runId, { timeout: '10s' })).toEqual({
      'shared.k': 'job 7',
    });
  });

  it('refuse a key that is not a task or fan-out node of the definition', () => {
    expect(() =>
      handlersFor(order, {
        // @ts-expect-error lod is not a node of the workflow (a typo of load)
        lod: () => [],
      }),
    ).toThrow(
      /handlers of workflow "typed-order": lod: expected the name of a task or fan-out node/,
    );
  });
});

describe("an output that breaks its node's schema", () => {
  it('discards the step as permanent with the issues, and promotes no dependent', async () => {
    let shipped = 0;
    await engine.startWorker({
      workflows: [order],
      handlers: handlersFor(order, {
        load: () => [{ sku: 'a' }],
        // Wrong on purpose: the schema says a number, the handler gives text at run time.
        count: () => 'one' as unknown as number,
        pack: () => 'box',
        ship: () => {
          shipped++;
          return 'shipped';
        },
      }),
    });
    const { runId } = await engine.client.submit(order, { orderId: 'o2' });
    const run = await engine.client.wait(runId, { timeout: '10s' });
    expect(run.state).toBe('failed');
    const steps = await engine.client.listSteps(runId);
    const count = steps.find((s) => s.node === 'count')!;
    expect(count).toMatchObject({ state: 'discarded', errorKind: 'permanent', attempts: 1 });
    expect(count.maxAttempts).toBeGreaterThan(1);
    expect(count.error).toContain('invalid output of node "count"');
    expect(count.error).toMatch(/\(root\): .*expected number/i);
    const ship = steps.find((s) => s.node === 'ship')!;
    expect(['pending', 'cancelled']).toContain(ship.state);
    expect(shipped).toBe(0);
    const events = await engine.client.events(runId);
    expect(events.filter((e) => e.node === 'ship' && e.to === 'available')).toEqual([]);
  });

  it('is checked for item tasks, and with valibot as with zod', async () => {
    const items = workflow('typed-items')
      .task('list', 'items.list')
      .fanOut('each', 'items.each', { from: 'list', output: v.object({ ok: v.literal(true) }) })
      .build();
    await engine.startWorker({
      workflows: [items],
      handlers: {
        'items.list': () => [1, 2],
        'items.each': (ctx) => ({ ok: ctx.item === 1 }),
      },
    });
    const { runId } = await engine.client.submit(items, {});
    const bad = await eventually(async () => {
      const steps = await engine.client.listSteps(runId);
      const item = steps.find((s) => s.node === 'each' && s.itemIndex === 1);
      expect(item?.state).toBe('discarded');
      return item;
    }, 'item 1 discarded');
    expect(bad).toMatchObject({ errorKind: 'permanent', attempts: 1 });
    expect(bad.error).toContain('invalid output of node "each" item 1: ok: ');
  });
});

describe('an output completed in a transaction', () => {
  const recorded = workflow('typed-recorded')
    .task('record', 'typed.record', { output: z.object({ recorded: z.literal(true) }) })
    .build();

  async function rowsOf(stepId: string): Promise<number> {
    const [row] = await engine.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM app_records WHERE step_id = $1',
      [stepId],
    );
    return row!.n;
  }

  /**
   * Submits a run of `recorded` and expects its step discarded as permanent with the schema's
   * issues, none of the handler's rows committed, and the transactional call rejected once.
   */
  async function expectRefusedWithNothingWritten(rejected: unknown[]): Promise<void> {
    const { runId } = await engine.client.submit(recorded, {});
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const [step] = await engine.client.listSteps(runId);
    expect(step).toMatchObject({ state: 'discarded', errorKind: 'permanent', attempts: 1 });
    expect(step!.error).toContain('invalid output of node "record": recorded: ');
    expect(await rowsOf(step!.id)).toBe(0);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ code: 'VALIDATION' });
  }

  beforeAll(async () => {
    await engine.query('CREATE TABLE app_records (step_id uuid NOT NULL)');
  });

  it('is checked before ctx.transaction writes the completion: all rolls back, the step is discarded', async () => {
    const rejected: unknown[] = [];
    await engine.startWorker({
      workflows: [recorded],
      handlers: handlersFor(recorded, {
        record: async (ctx) => {
          try {
            return await ctx.transaction(async (tx) => {
              await tx.query('INSERT INTO app_records (step_id) VALUES ($1)', [ctx.stepId]);
              // Wrong on purpose: the schema wants `recorded: true`.
              return { recorded: 'yes' } as unknown as { recorded: true };
            });
          } catch (error) {
            rejected.push(error);
            throw error;
          }
        },
      }),
    });
    await expectRefusedWithNothingWritten(rejected);
  });

  it('is checked before ctx.completeWithin writes the completion, which writes nothing', async () => {
    const rejected: unknown[] = [];
    await engine.startWorker({
      workflows: [recorded],
      handlers: handlersFor(recorded, {
        record: async (ctx) => {
          const tx = await engine.pool.connect();
          try {
            await tx.query('BEGIN');
            await tx.query('INSERT INTO app_records (step_id) VALUES ($1)', [ctx.stepId]);
            const output = await ctx.completeWithin(tx, { recorded: false } as unknown as {
              recorded: true;
            });
            await tx.query('COMMIT');
            return output;
          } catch (error) {
            rejected.push(error);
            await tx.query('ROLLBACK');
            throw error;
          } finally {
            tx.release();
          }
        },
      }),
    });
    await expectRefusedWithNothingWritten(rejected);
  });
});

describe('a standalone job of a declared kind', () => {
  it('is typed by its declaration, and its output is checked against the declared schema', async () => {
    const count = job('typed.count-job', {
      input: z.object({ n: z.number() }),
      output: z.object({ doubled: z.number() }),
    });
    await engine.startWorker({
      handlers: jobHandler(count, (ctx) =>
        // Wrong on purpose for n = 0: the schema says a number, the handler gives text.
        ctx.input.n === 0
          ? ({ doubled: 'none' } as unknown as { doubled: number })
          : { doubled: ctx.input.n * 2 },
      ),
    });
    const good = await engine.client.enqueue(count, { n: 21 });
    expect(await engine.client.result(good.runId, { timeout: '10s' })).toEqual({
      'typed.count-job': { doubled: 42 },
    });
    const bad = await engine.client.enqueue(count, { n: 0 });
    expect((await engine.client.wait(bad.runId, { timeout: '10s' })).state).toBe('failed');
    const [step] = await engine.client.listSteps(bad.runId);
    expect(step).toMatchObject({ state: 'discarded', errorKind: 'permanent', attempts: 1 });
    expect(step!.error).toContain('invalid output of job "typed.count-job": doubled: ');
  });
});

describe('a child run started by a child node', () => {
  it("has its input checked against the child workflow's schema: the child node is discarded, no child run written", async () => {
    const invoice = workflow('typed-child-invoice', { input: z.object({ invoiceId: z.string() }) })
      .task('pdf', 'typed.child.pdf')
      .build();
    // The child named by name: submit cannot check it; the worker that settles the parent does.
    const parent = workflow('typed-child-parent')
      .task('prepare', 'typed.child.prepare')
      .child('bill', { workflow: 'typed-child-invoice', dependsOn: ['prepare'] })
      .build();
    await engine.startWorker({
      workflows: [parent, invoice],
      handlers: { 'typed.child.prepare': () => 'ready', 'typed.child.pdf': () => 'pdf' },
    });
    const { runId } = await engine.client.submit(parent, { orderId: 'o-1' });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const bill = (await engine.client.listSteps(runId)).find((s) => s.node === 'bill')!;
    expect(bill).toMatchObject({ state: 'discarded', errorKind: 'permanent' });
    expect(bill.error).toContain(
      'invalid input of child workflow "typed-child-invoice": invoiceId: ',
    );
    const children = await engine.query('SELECT id FROM cyclone_runs WHERE parent_run_id = $1', [
      runId,
    ]);
    expect(children).toEqual([]);

    const fits = await engine.client.submit(parent, { invoiceId: 'i-1' });
    expect((await engine.client.wait(fits.runId, { timeout: '10s' })).state).toBe('completed');
  });
});
