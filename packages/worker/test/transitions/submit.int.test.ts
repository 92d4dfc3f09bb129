import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import {
  eventRows,
  runRow,
  secondsFromNow,
  stepRows,
  tableCounts,
  useTransitionEngine,
} from './helpers.js';

const engine = useTransitionEngine();

// a -> b -> c, and c also depends on a: c waits for two dependencies.
const diamond = workflow('submit-diamond')
  .task('a', 'submit.a', { maxAttempts: 4 })
  .task('b', 'submit.b', { dependsOn: ['a'] })
  .task('c', 'submit.c', { dependsOn: ['a', 'b'], timeout: '5s' })
  .task('d', 'submit.d')
  .build();

describe('(inserted) -> pending and (inserted) -> available', () => {
  it('inserts the roots of a submitted DAG available and its dependents pending, counting their dependencies', async () => {
    const { runId, created } = await engine.client.submit(diamond, { order: 7 });
    expect(created).toBe(true);

    const steps = await stepRows(engine, runId);
    expect(Object.keys(steps)).toEqual(['a', 'b', 'c', 'd']);
    const shape = Object.values(steps).map((s) => [
      s.node,
      s.node_type,
      s.kind,
      s.state,
      s.depends_on,
      s.deps_remaining,
      s.max_attempts,
    ]);
    expect(shape).toEqual([
      ['a', 'task', 'submit.a', 'available', [], 0, 4],
      ['b', 'task', 'submit.b', 'pending', ['a'], 1, 3],
      ['c', 'task', 'submit.c', 'pending', ['a', 'b'], 2, 3],
      ['d', 'task', 'submit.d', 'available', [], 0, 3],
    ]);
    expect(steps.c!.timeout_ms).toBe(5000);
    for (const step of Object.values(steps)) {
      expect(step.run_id).toBe(runId);
      expect(step.on_dep_failure).toBe('fail_run');
      expect(step.attempts).toBe(0);
      expect(step.reclaims).toBe(0);
      expect(step.claim_token).toBeNull();
      expect(step.claimed_by).toBeNull();
      expect(step.lease_expires_at).toBeNull();
      expect(step.started_at).toBeNull();
      expect(step.ended_at).toBeNull();
      expect(step.output).toBeNull();
      expect(step.error).toBeNull();
      expect(step.error_kind).toBeNull();
      expect(step.panic_stack).toBeNull();
    }
    // The roots are claimable at once.
    expect(await secondsFromNow(engine, steps.a!.id, 'scheduled_at')).toBeLessThanOrEqual(0);

    const run = await runRow(engine, runId);
    expect(run).toMatchObject({
      workflow: 'submit-diamond',
      definition_hash: diamond.hash,
      state: 'running',
      input: { order: 7 },
      open_steps: 4,
      failure_count: 0,
      reclaim_count: 0,
      error_kind: null,
      error: null,
      failed_node: null,
      ended_at: null,
    });

    const events = await eventRows(engine, runId);
    expect(events.map((e) => [e.type, e.step_id, e.from_state, e.to_state])).toEqual([
      ['run_submitted', null, null, 'running'],
    ]);
  });

  it('stores a definition once however many runs use it', async () => {
    await engine.client.submit(diamond, 1);
    await engine.client.submitMany(diamond, [2, 3]);
    const rows = await engine.query<{ n: number; definition: { name: string; hash: string } }>(
      'SELECT count(*) OVER ()::int AS n, definition FROM cyclone_workflows WHERE hash = $1',
      [diamond.hash],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.definition).toMatchObject({ name: 'submit-diamond', hash: diamond.hash });
  });

  it('enqueues a standalone job as a run of one available step named after its kind', async () => {
    const { runId } = await engine.client.enqueue(
      'submit.job',
      { to: 'x@example.com' },
      { maxAttempts: 5 },
    );

    const steps = await stepRows(engine, runId);
    expect(Object.keys(steps)).toEqual(['submit.job']);
    expect(steps['submit.job']).toMatchObject({
      node_type: 'task',
      kind: 'submit.job',
      state: 'available',
      depends_on: [],
      deps_remaining: 0,
      attempts: 0,
      max_attempts: 5,
      claim_token: null,
      lease_expires_at: null,
    });
    expect(await runRow(engine, runId)).toMatchObject({
      workflow: 'submit.job',
      definition_hash: null,
      state: 'running',
      input: { to: 'x@example.com' },
      open_steps: 1,
    });
    const events = await eventRows(engine, runId);
    expect(events.map((e) => [e.type, e.to_state])).toEqual([['run_submitted', 'running']]);
  });

  it('enqueues a job for later: available, but not claimable before its scheduled time', async () => {
    let calls = 0;
    await engine.startWorker({ handlers: { 'submit.later': () => void calls++ } });
    const { runId } = await engine.client.enqueue('submit.later', null, { scheduledAt: '1m' });
    const step = (await stepRows(engine, runId))['submit.later']!;
    expect(step.state).toBe('available');
    const wait = await secondsFromNow(engine, step.id, 'scheduled_at');
    expect(wait).toBeGreaterThan(55);
    expect(wait).toBeLessThanOrEqual(60);

    // A job due now, enqueued after it, is claimed and finished while the later one stays put.
    const { runId: now } = await engine.client.enqueue('submit.later', null);
    expect((await engine.client.wait(now, { timeout: '10s' })).state).toBe('completed');
    expect(calls).toBe(1);
    expect((await stepRows(engine, runId))['submit.later']!.state).toBe('available');
  });

  it('submits many runs in one call, each with all of its steps and one run_submitted event', async () => {
    const submitted = await engine.client.submitMany(diamond, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(submitted).toHaveLength(3);
    expect(new Set(submitted.map((s) => s.runId)).size).toBe(3);
    for (const [i, { runId, created }] of submitted.entries()) {
      expect(created).toBe(true);
      expect(await runRow(engine, runId)).toMatchObject({ input: { n: i + 1 }, open_steps: 4 });
      expect(Object.keys(await stepRows(engine, runId))).toHaveLength(4);
      expect((await eventRows(engine, runId)).map((e) => e.type)).toEqual(['run_submitted']);
    }
  });
});

describe('idempotent submission', () => {
  it('returns the existing run with created false for a second submit with the same key, and inserts nothing', async () => {
    const first = await engine.client.submit(diamond, { v: 1 }, { idempotencyKey: 'order-42' });
    expect(first.created).toBe(true);
    const before = await tableCounts(engine);

    const second = await engine.client.submit(diamond, { v: 2 }, { idempotencyKey: 'order-42' });
    expect(second).toEqual({ runId: first.runId, created: false });
    expect(await tableCounts(engine)).toEqual(before);
    // The first run's input is kept.
    expect((await runRow(engine, first.runId)).input).toEqual({ v: 1 });
    expect((await runRow(engine, first.runId)).idempotency_key).toBe('order-42');
  });

  it('creates exactly one run when several submits race with the same key', async () => {
    const before = await tableCounts(engine);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        engine.client.submit(diamond, { i }, { idempotencyKey: 'race-1' }),
      ),
    );
    const ids = new Set(results.map((r) => r.runId));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const after = await tableCounts(engine);
    expect(after.runs).toBe(before.runs + 1);
    expect(after.steps).toBe(before.steps + 4);
    // The run's run_submitted is told by its row (decision 130): no event row at all.
    expect(after.events).toBe(before.events);
    expect((await engine.client.events([...ids][0]!)).map((e) => e.type)).toEqual([
      'run_submitted',
    ]);
  });

  it('returns the existing job for a second enqueue with the same key, and inserts nothing', async () => {
    const first = await engine.client.enqueue('submit.once', 1, { idempotencyKey: 'job-1' });
    const before = await tableCounts(engine);
    const second = await engine.client.enqueue('submit.once', 2, { idempotencyKey: 'job-1' });
    expect(second).toEqual({ runId: first.runId, created: false });
    expect(await tableCounts(engine)).toEqual(before);
  });

  it('keys each run of a bulk submit by position, so a repeated bulk submit creates nothing', async () => {
    const first = await engine.client.submitMany(diamond, [1, 2], { idempotencyKey: 'bulk' });
    expect(first.map((s) => s.created)).toEqual([true, true]);
    const before = await tableCounts(engine);
    const again = await engine.client.submitMany(diamond, [1, 2, 3], { idempotencyKey: 'bulk' });
    expect(again.slice(0, 2)).toEqual(first.map((s) => ({ runId: s.runId, created: false })));
    expect(again[2]!.created).toBe(true);
    const after = await tableCounts(engine);
    expect(after.runs).toBe(before.runs + 1);
    expect(after.steps).toBe(before.steps + 4);
  });
});

describe("submit inside the caller's transaction", () => {
  it('leaves no run behind when the caller rolls back', async () => {
    const before = await tableCounts(engine);
    const tx = await engine.pool.connect();
    let runId: string;
    try {
      await tx.query('BEGIN');
      ({ runId } = await engine.client.submit(diamond, { tx: 'rollback' }, { tx }));
      // Visible inside the transaction, to nobody else.
      const inside = await tx.query('SELECT state FROM cyclone_runs WHERE id = $1', [runId]);
      expect(inside.rows).toEqual([{ state: 'running' }]);
      expect(await engine.query('SELECT 1 FROM cyclone_runs WHERE id = $1', [runId])).toEqual([]);
      await tx.query('ROLLBACK');
    } finally {
      tx.release();
    }
    expect(await engine.query('SELECT 1 FROM cyclone_runs WHERE id = $1', [runId])).toEqual([]);
    expect(await engine.query('SELECT 1 FROM cyclone_steps WHERE run_id = $1', [runId])).toEqual(
      [],
    );
    expect(await tableCounts(engine)).toEqual(before);
  });

  it('makes the run visible, and runnable, once the caller commits', async () => {
    await engine.startWorker({
      handlers: { 'submit.tx': (ctx) => ({ echoed: ctx.input }) },
    });
    const tx = await engine.pool.connect();
    let runId: string;
    try {
      await tx.query('BEGIN');
      ({ runId } = await engine.client.enqueue('submit.tx', 'committed', { tx }));
      expect(await engine.query('SELECT 1 FROM cyclone_runs WHERE id = $1', [runId])).toEqual([]);
      await tx.query('COMMIT');
    } finally {
      tx.release();
    }
    expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({
      'submit.tx': { echoed: 'committed' },
    });
    expect((await runRow(engine, runId)).state).toBe('completed');
  });
});
