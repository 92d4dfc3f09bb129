import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { eventually, gate } from '../engine.js';
import {
  eventRows,
  eventTrail,
  runRow,
  secondsFromNow,
  stepReaches,
  stepRow,
  stepRows,
  useTransitionEngine,
} from './helpers.js';

const engine = useTransitionEngine();

describe('pending -> available', () => {
  it('promotes a node when its last dependency completes, and not after the first of two', async () => {
    const join = workflow('promote-join')
      .task('left', 'promote.left')
      .task('right', 'promote.right')
      .task('join', 'promote.join', { dependsOn: ['left', 'right'] })
      .build();
    const left = gate<string>();
    const right = gate<string>();
    // No handler for promote.join yet: once promoted, the join step stays available to be seen.
    await engine.startWorker({
      handlers: { 'promote.left': () => left.promise, 'promote.right': () => right.promise },
    });
    const { runId } = await engine.client.submit(join, null);
    expect((await stepRow(engine, runId, 'join')).deps_remaining).toBe(2);

    left.open('L');
    await stepReaches(engine, runId, 'left', 'completed');
    const waiting = await stepRow(engine, runId, 'join');
    expect(waiting.state).toBe('pending');
    expect(waiting.deps_remaining).toBe(1);
    expect((await eventRows(engine, runId)).map((e) => e.type)).not.toContain('step_ready');
    expect((await runRow(engine, runId)).open_steps).toBe(2);

    right.open('R');
    await stepReaches(engine, runId, 'right', 'completed');
    const promoted = await stepRow(engine, runId, 'join');
    expect(promoted.state).toBe('available');
    expect(promoted.deps_remaining).toBe(0);
    expect(await secondsFromNow(engine, promoted.id, 'scheduled_at')).toBeLessThanOrEqual(0);
    expect(promoted.attempts).toBe(0);
    expect(promoted.claim_token).toBeNull();
    // One step_ready event, written by the completion of the last dependency.
    const ready = (await eventRows(engine, runId)).filter((e) => e.type === 'step_ready');
    expect(ready.map((e) => [e.step_id, e.node, e.from_state, e.to_state])).toEqual([
      [promoted.id, 'join', 'pending', 'available'],
    ]);
    const rightDone = (await eventRows(engine, runId)).find(
      (e) => e.type === 'step_completed' && e.node === 'right',
    );
    expect(Number(ready[0]!.id)).toBeGreaterThan(Number(rightDone!.id));

    // A worker for the join kind now runs it with both upstream outputs.
    await engine.startWorker({ handlers: { 'promote.join': (ctx) => ctx.deps } });
    expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({
      join: { left: 'L', right: 'R' },
    });
  });

  it('promotes every dependent of a completed node in the same transaction as the completion', async () => {
    const fan = workflow('promote-fan')
      .task('root', 'promote.root')
      .task('x', 'promote.x', { dependsOn: ['root'] })
      .task('y', 'promote.y', { dependsOn: ['root'] })
      .build();
    await engine.startWorker({ handlers: { 'promote.root': () => 'r' } });
    const { runId } = await engine.client.submit(fan, null);
    await stepReaches(engine, runId, 'root', 'completed');
    // Read in one statement: no moment exists where root is completed and x or y still pending.
    const steps = await stepRows(engine, runId);
    expect([steps.x!.state, steps.y!.state]).toEqual(['available', 'available']);
  });
  it('promotes a node whose two dependencies complete in the same batch, with one step_ready event', async () => {
    const join = workflow('promote-batch')
      .task('left', 'batch.left')
      .task('right', 'batch.right')
      .task('join', 'batch.join', { dependsOn: ['left', 'right'] })
      .build();
    const { runId } = await engine.client.submit(join, null);
    const claimed = await engine.store.claim({
      kinds: ['batch.left', 'batch.right'],
      limit: 10,
      workerId: 'batch-worker',
      leaseMs: 60_000,
    });
    expect(claimed.map((c) => c.node).sort()).toEqual(['left', 'right']);
    const accepted = await engine.store.complete(
      claimed.map((c) => ({
        stepId: c.id,
        claimToken: c.claimToken,
        outputJson: JSON.stringify(c.node),
      })),
    );
    expect(accepted.size).toBe(2);

    const steps = await stepRows(engine, runId);
    expect(steps.join).toMatchObject({ state: 'available', deps_remaining: 0 });
    expect(await runRow(engine, runId)).toMatchObject({ state: 'running', open_steps: 1 });
    const ready = (await eventRows(engine, runId)).filter((e) => e.type === 'step_ready');
    expect(ready.map((e) => e.node)).toEqual(['join']);

    // The promoted step is claimed with both upstream outputs.
    const [next] = await engine.store.claim({
      kinds: ['batch.join'],
      limit: 10,
      workerId: 'batch-worker',
      leaseMs: 60_000,
    });
    expect(next).toMatchObject({
      node: 'join',
      deps: { left: 'left', right: 'right' },
      attempts: 0,
    });
  });
});

describe('available -> running', () => {
  it('claims a step for a worker: running, a claim token, the worker id, a lease in the future and a step_started event', async () => {
    const held = gate();
    let seenAttempt: number | undefined;
    const worker = await engine.startWorker({
      handlers: {
        'claim.held': async (ctx) => {
          seenAttempt = ctx.attempt;
          await held.promise;
          return 'done';
        },
      },
      leaseDuration: '30s',
    });
    const { runId } = await engine.client.enqueue('claim.held', null);
    const step = await stepReaches(engine, runId, 'claim.held', 'running');

    expect(step.claim_token).toMatch(/^[0-9a-f-]{36}$/);
    expect(step.claimed_by).toBe(worker.id);
    expect(step.started_at).toBeInstanceOf(Date);
    expect(step.attempts).toBe(0);
    expect(step.ended_at).toBeNull();
    const leaseLeft = await secondsFromNow(engine, step.id, 'lease_expires_at');
    expect(leaseLeft).toBeGreaterThan(20);
    expect(leaseLeft).toBeLessThanOrEqual(30);
    await eventually(() => seenAttempt === 1, 'the handler to start with attempt 1');
    expect(worker.activeSteps).toBe(1);

    const started = (await eventRows(engine, runId)).filter((e) => e.type === 'step_started');
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({
      step_id: step.id,
      node: 'claim.held',
      from_state: 'available',
      to_state: 'running',
      detail: { attempt: 1, worker: worker.id },
    });
    // The run stays running while its step runs.
    expect((await runRow(engine, runId)).state).toBe('running');

    held.open();
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
  });

  it('never hands one step to two workers that poll at the same time', async () => {
    const claims = new Map<string, number>();
    const release = gate();
    const handler = async (ctx: { stepId: string }) => {
      claims.set(ctx.stepId, (claims.get(ctx.stepId) ?? 0) + 1);
      await release.promise;
    };
    await Promise.all([
      engine.startWorker({ handlers: { 'claim.race': handler }, concurrency: 5 }),
      engine.startWorker({ handlers: { 'claim.race': handler }, concurrency: 5 }),
    ]);
    const jobs = await engine.client.enqueueMany('claim.race', [1, 2, 3, 4, 5, 6, 7, 8]);
    await eventually(() => claims.size === 8, 'all 8 jobs to be claimed');
    expect([...claims.values()].every((n) => n === 1)).toBe(true);
    release.open();
    for (const { runId } of jobs) {
      expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    }
  });
});

describe('running -> completed', () => {
  it('stores the output, charges one attempt, ends the step and completes the run with its events', async () => {
    const pair = workflow('complete-pair')
      .task('first', 'complete.first')
      .task('second', 'complete.second', { dependsOn: ['first'] })
      .build();
    await engine.startWorker({
      handlers: {
        'complete.first': (ctx) => ({ n: (ctx.input as { n: number }).n + 1 }),
        'complete.second': (ctx) => ({
          total: (ctx.deps.first as { n: number }).n * 10,
          note: 'é✓',
        }),
      },
      workflows: [pair],
    });
    const { runId } = await engine.client.submit(pair, { n: 1 });
    const run = await engine.client.wait(runId, { timeout: '10s' });
    expect(run.state).toBe('completed');

    const steps = await stepRows(engine, runId);
    for (const step of Object.values(steps)) {
      expect(step.state).toBe('completed');
      expect(step.attempts).toBe(1);
      expect(step.ended_at).toBeInstanceOf(Date);
      expect(step.ended_at!.getTime()).toBeGreaterThanOrEqual(step.started_at!.getTime());
      expect(step.lease_expires_at).toBeNull();
      expect(step.error).toBeNull();
      expect(step.error_kind).toBeNull();
    }
    expect(steps.first!.output).toEqual({ n: 2 });
    expect(steps.second!.output).toEqual({ total: 20, note: 'é✓' });

    const row = await runRow(engine, runId);
    expect(row).toMatchObject({
      state: 'completed',
      open_steps: 0,
      failure_count: 0,
      error_kind: null,
    });
    expect(row.ended_at).toBeInstanceOf(Date);
    expect(row.ended_at!.getTime()).toBeGreaterThanOrEqual(steps.second!.ended_at!.getTime());
    expect(row.started_at).toBeInstanceOf(Date);

    expect(await eventTrail(engine, runId)).toEqual([
      ['run_submitted', null, null, 'running', null],
      ['step_started', 'first', 'available', 'running', null],
      ['step_completed', 'first', 'running', 'completed', null],
      ['step_ready', 'second', 'pending', 'available', null],
      ['step_started', 'second', 'available', 'running', null],
      ['step_completed', 'second', 'running', 'completed', null],
      ['run_completed', null, 'running', 'completed', null],
    ]);
    const completed = (await eventRows(engine, runId)).find((e) => e.type === 'step_completed');
    expect(completed!.detail).toEqual({ attempt: 1 });

    // The client reads the same rows.
    expect(run.endedAt).toEqual(row.ended_at);
    expect(await engine.client.result(runId)).toEqual({ second: { total: 20, note: 'é✓' } });
    expect(await engine.client.output(runId, 'first')).toEqual({ n: 2 });
    expect(await engine.client.output(runId, 'second')).toEqual({ total: 20, note: 'é✓' });
  });

  it('stores a handler that returns nothing as a null output', async () => {
    await engine.startWorker({ handlers: { 'complete.void': () => undefined } });
    const { runId } = await engine.client.enqueue('complete.void');
    expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({
      'complete.void': null,
    });
    expect((await stepRow(engine, runId, 'complete.void')).output).toBeNull();
  });
});
