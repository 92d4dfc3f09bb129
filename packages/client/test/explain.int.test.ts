import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError, workflow } from '@cyclone/core';
import { PostgresStore, runOfDefinition } from '@cyclone/store-postgres';
import { expectEventsFollowTable, useTestDatabase } from '@cyclone/test-db';
import { Client } from '../src/index.js';

// Each reason is put in place by the engine's own operations: the client's submit, signal and
// pause, and the store calls a worker and the scheduler make (claim, fail, complete, register).

const db = useTestDatabase();
let pool: pg.Pool;
let client: Client;
let engine: PostgresStore;
let checked = 0;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on('error', () => undefined);
  client = new Client({ pool });
  engine = new PostgresStore({ pool });
});
afterEach(async () => {
  checked = await expectEventsFollowTable(pool, checked);
});
afterAll(async () => {
  await client.close();
  await pool.end();
});

async function claimOne(kind: string, workerId = 'w-test') {
  const [claimed] = await engine.claim({ kinds: [kind], limit: 1, workerId, leaseMs: 60_000 });
  if (!claimed) throw new Error(`nothing of kind ${kind} to claim`);
  return claimed;
}

async function rejection(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('client.explain', () => {
  it('ready: an available step of a kind a live worker serves', async () => {
    await engine.registerWorker('w-ready', ['ex.ready']);
    const { runId } = await client.enqueue('ex.ready', null);
    expect(await client.explain(runId, 'ex.ready')).toMatchObject({
      node: 'ex.ready',
      state: 'available',
      reason: 'ready',
    });
  });

  it('no_worker: no live worker handles the kind', async () => {
    await engine.registerWorker('w-other', ['ex.other']);
    const { runId } = await client.enqueue('ex.nobody', null);
    const why = await client.explain(runId, 'ex.nobody');
    expect(why).toMatchObject({ reason: 'no_worker' });
    expect(why.message).toContain('ex.nobody');
  });

  it('running: leased by the worker until the lease expiry; Retrying after a failed attempt', async () => {
    const { runId } = await client.enqueue('ex.run', null, { maxAttempts: 3 });
    const first = await claimOne('ex.run', 'w-run');
    const running = await client.explain(runId, 'ex.run');
    expect(running).toMatchObject({ state: 'running', reason: 'running', worker: 'w-run' });
    expect(running.until).toBeInstanceOf(Date);
    expect(running.label).toBeUndefined();
    await engine.fail({
      stepId: first.id,
      claimToken: first.claimToken,
      errorKind: 'retryable',
      error: 'flaky',
      panicStack: null,
      attempts: 0,
      maxAttempts: 3,
      retryDelayMs: 0,
    });
    await claimOne('ex.run', 'w-run-2');
    expect(await client.explain(runId, 'ex.run')).toMatchObject({
      reason: 'running',
      label: 'Retrying',
      worker: 'w-run-2',
    });
  });

  it('backoff: AwaitingRetry until the end of the backoff after attempt 1 failed', async () => {
    const { runId } = await client.enqueue('ex.backoff', null, { maxAttempts: 3 });
    const claimed = await claimOne('ex.backoff');
    await engine.fail({
      stepId: claimed.id,
      claimToken: claimed.claimToken,
      errorKind: 'retryable',
      error: 'gateway timeout',
      panicStack: null,
      attempts: 0,
      maxAttempts: 3,
      retryDelayMs: 60_000,
    });
    const why = await client.explain(runId, 'ex.backoff');
    expect(why).toMatchObject({ state: 'available', reason: 'backoff', label: 'AwaitingRetry' });
    expect(why.until!.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(why.message).toContain('Attempt 1 of 3 failed (gateway timeout)');
  });

  it('scheduled: a job enqueued for later', async () => {
    const { runId } = await client.enqueue('ex.later', null, { scheduledAt: '1h' });
    const why = await client.explain(runId, 'ex.later');
    expect(why).toMatchObject({ reason: 'scheduled' });
    expect(why.until!.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
  });

  it('dependencies: names the upstream nodes not completed', async () => {
    const def = workflow('ex-deps')
      .task('a', 'ex.deps.a')
      .task('b', 'ex.deps.b')
      .task('c', 'ex.deps.c', { dependsOn: ['a', 'b'] })
      .build();
    const { runId } = await client.submit(def, null);
    const a = await claimOne('ex.deps.a');
    await engine.complete([{ stepId: a.id, claimToken: a.claimToken, outputJson: 'null' }]);
    expect(await client.explain(runId, 'c')).toMatchObject({
      state: 'pending',
      reason: 'dependencies',
      waitingOn: ['b'],
    });
  });

  it('signal: the signal names and the max wait deadline', async () => {
    const def = workflow('ex-signal')
      .waitSignal('approval', { signal: 'approved', maxWait: '2h' })
      .build();
    const { runId } = await client.submit(def, null);
    const why = await client.explain(runId, 'approval');
    expect(why).toMatchObject({
      state: 'waiting_signal',
      reason: 'signal',
      waitingOn: ['approved'],
    });
    expect(why.until!.getTime()).toBeGreaterThan(Date.now() + 7_000_000);
  });

  it('timer: when it fires', async () => {
    const def = workflow('ex-timer').waitTimer('cool-off', { waitFor: '10m' }).build();
    const { runId } = await client.submit(def, null);
    const why = await client.explain(runId, 'cool-off');
    expect(why).toMatchObject({ state: 'waiting_timer', reason: 'timer' });
    expect(why.until!.getTime()).toBeGreaterThan(Date.now() + 500_000);
  });

  it('paused: a step of a paused run', async () => {
    const { runId } = await client.enqueue('ex.paused', null);
    await client.run(runId).pause();
    expect(await client.explain(runId, 'ex.paused')).toMatchObject({
      state: 'paused',
      reason: 'paused',
    });
  });

  it('terminal: a completed step', async () => {
    const { runId } = await client.enqueue('ex.done', null);
    const claimed = await claimOne('ex.done');
    await engine.complete([
      { stepId: claimed.id, claimToken: claimed.claimToken, outputJson: '1' },
    ]);
    expect(await client.explain(runId, 'ex.done')).toMatchObject({
      state: 'completed',
      reason: 'terminal',
    });
  });

  it('max_parallel: the item tasks holding the places of a full limit', async () => {
    const def = workflow('ex-fan')
      .task('list', 'ex.fan.list')
      .fanOut('pack', 'ex.fan.pack', { from: 'list', maxParallel: 2 })
      .build();
    const run = runOfDefinition(def, 'null');
    await engine.submit([run]);
    const list = await claimOne('ex.fan.list');
    await engine.complete([
      { stepId: list.id, claimToken: list.claimToken, outputJson: '[1,2,3,4]' },
    ]);
    // The completion expanded the node: two items available under the limit, two pending.
    await engine.settlePending();
    const running = await claimOne('ex.fan.pack', 'w-pack');
    const items = (await client.listSteps(run.id)).filter((s) => s.itemIndex !== null);
    expect(items.map((s) => s.state).sort()).toEqual([
      'available',
      'pending',
      'pending',
      'running',
    ]);
    const name = (s: { itemIndex: number | null }) => `pack[${s.itemIndex}]`;
    const holding = items
      .filter((s) => s.state !== 'pending')
      .map(name)
      .sort();
    const waiting = items.find((s) => s.state === 'pending')!;
    expect(await client.explain(run.id, name(waiting))).toMatchObject({
      node: name(waiting),
      state: 'pending',
      reason: 'max_parallel',
      waitingOn: holding,
    });
    const runningItem = items.find((s) => s.id === running.id)!;
    expect(await client.explain(run.id, name(runningItem))).toMatchObject({
      reason: 'running',
      worker: 'w-pack',
    });
    const node = await client.explain(run.id, 'pack');
    expect(node).toMatchObject({
      state: 'pending',
      reason: 'dependencies',
      waitingOn: ['pack[0]', 'pack[1]', 'pack[2]', 'pack[3]'],
    });
    expect(node.message).toContain('2 wait for a place under maxParallel 2');
  });

  it('child: the child run and its state', async () => {
    const invoice = workflow('ex-invoice').task('pdf', 'ex.invoice.pdf').build();
    await engine.registerWorkflows([invoice]);
    const def = workflow('ex-parent').child('invoice', { workflow: 'ex-invoice' }).build();
    const { runId } = await client.submit(def, null);
    const page = await client.listRuns({ parentRunId: runId });
    expect(page.runs).toHaveLength(1);
    const child = page.runs[0]!;
    const why = await client.explain(runId, 'invoice');
    expect(why).toMatchObject({ state: 'waiting_child', reason: 'child', waitingOn: [child.id] });
    expect(why.message).toContain(`${child.id} (running)`);
  });

  it('finds a step by its id too', async () => {
    const { runId } = await client.enqueue('ex.byid', null, { scheduledAt: '1h' });
    const [step] = await client.listSteps(runId);
    expect(await client.explain(runId, step!.id)).toMatchObject({
      node: 'ex.byid',
      reason: 'scheduled',
    });
  });

  it('refuses an unknown run or node with NotFoundError, a bad node with ValidationError', async () => {
    const { runId } = await client.enqueue('ex.known', null);
    expect(
      await rejection(client.explain('00000000-0000-7000-8000-000000000000', 'x')),
    ).toMatchObject({ code: 'NOT_FOUND', entity: 'run' });
    expect(await rejection(client.explain('not-a-run', 'x'))).toBeInstanceOf(NotFoundError);
    expect(await rejection(client.explain(runId, 'nope'))).toMatchObject({
      code: 'NOT_FOUND',
      entity: 'node',
    });
    expect(await rejection(client.explain(runId, 'ex.known[2]'))).toBeInstanceOf(NotFoundError);
    expect(await rejection(client.explain(runId, ''))).toBeInstanceOf(ValidationError);
    expect(await rejection(client.explain(runId, 'a\u0000b'))).toBeInstanceOf(ValidationError);
    expect(await rejection(client.listRuns({ parentRunId: 'nope' }))).toBeInstanceOf(
      ValidationError,
    );
  });
});

describe('explain under fair share', () => {
  it("says a claimable step waits for its key's turn", async () => {
    const kind = 'explain.fair';
    await client.setFairShare({ kind });
    await engine.registerWorker('w-fair', [kind]);
    const { runId } = await client.enqueue(kind, {}, { concurrencyKey: 'tenant-b' });
    const explained = await client.explain(runId, kind);
    expect(explained.reason).toBe('ready');
    expect(explained.message).toContain("waits for its key's turn");
    expect(explained.message).toContain('key "tenant-b"');
    await client.removeFairShare(kind);
    expect((await client.explain(runId, kind)).message).not.toContain('turn');
  });
});
