import { describe, expect, it } from 'vitest';
import {
  AlreadyPausedError,
  NoExhaustedNodeError,
  NotFoundError,
  OnDepFailure,
  RetryAdditionalAttempts,
  workflow,
} from '@cyclone/core';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { claimOne, useStore } from '../fixture.js';
import { failedRun, failure, statesOf, stepOf } from './helpers.js';

const fx = useStore();

describe('retryRun', () => {
  it('retries a discarded node, reopens what fail-fast cancelled, and the run completes normally', async () => {
    const { runId, stepA } = await failedRun(fx, 'rt1');
    expect(await statesOf(fx, runId)).toEqual({ a: 'discarded', b: 'cancelled', c: 'cancelled' });

    // Raise the attempts to the step's limit, so the retry has to raise the limit.
    await fx.query('UPDATE cyclone_steps SET attempts = max_attempts, reclaims = 2 WHERE id = $1', [
      stepA,
    ]);
    const limit = (await fx.step(stepA)).max_attempts;
    const done = await fx.store.retryRun(runId, { node: 'a' });

    expect(done).toEqual({ retried: 1, reopened: 2 });
    expect(await statesOf(fx, runId)).toEqual({ a: 'available', b: 'pending', c: 'available' });
    expect(await fx.step(stepA)).toMatchObject({
      attempts: limit,
      max_attempts: limit + RetryAdditionalAttempts,
      reclaims: 0,
      error: null,
      error_kind: null,
      panic_stack: null,
      ended_at: null,
    });
    expect(await fx.run(runId)).toMatchObject({
      state: 'running',
      open_steps: 3,
      error: null,
      error_kind: null,
      failed_node: null,
      ended_at: null,
    });
    const events = await fx.events(runId);
    expect(events).toContainEqual(['step_retried', 'discarded', 'available', 'operator_retry']);
    expect(events).toContainEqual([
      'step_reopened',
      'cancelled',
      'pending',
      'operator_retry_reopen',
    ]);
    expect(events).toContainEqual(['step_ready', 'pending', 'available', 'promote']);
    expect(events).toContainEqual(['run_retried', 'failed', 'running', 'operator_retry']);

    for (const kind of ['rt1.a', 'rt1.c', 'rt1.b']) {
      const s = await claimOne(fx, kind);
      await fx.store.complete([{ stepId: s.id, claimToken: s.claimToken, outputJson: '1' }]);
    }
    expect(await statesOf(fx, runId)).toEqual({ a: 'completed', b: 'completed', c: 'completed' });
    expect(await fx.run(runId)).toMatchObject({ state: 'completed', open_steps: 0 });
  });

  it('retries by step id, and retryAll retries every discard', async () => {
    const { runId, stepA } = await failedRun(fx, 'rt2');
    expect(await fx.store.retryRun(runId, { node: stepA })).toMatchObject({ retried: 1 });
    const second = await failedRun(fx, 'rt3');
    expect(await fx.store.retryRun(second.runId, { all: true })).toMatchObject({ retried: 1 });
    expect((await fx.run(second.runId)).state).toBe('running');
  });

  it('a retry of one node widens to another uncontained discard, so the run can finish', async () => {
    const def = workflow('rt-two').task('x', 'rt4.x').task('y', 'rt4.y').build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    const x = await claimOne(fx, 'rt4.x');
    const y = await claimOne(fx, 'rt4.y');
    await fx.store.fail(failure(x.id, x.claimToken));
    // y was running when x failed the run: fail-fast cancelled it. Discard it by hand as if its
    // own failure had landed first, so the run holds two uncontained discards.
    await fx.query(
      `UPDATE cyclone_steps SET state = 'discarded', error_kind = 'permanent' WHERE id = $1`,
      [y.id],
    );
    await fx.query(`DELETE FROM cyclone_events WHERE step_id = $1`, [y.id]);
    const done = await fx.store.retryRun(run.id, { node: 'x' });
    expect(done.retried).toBe(2);
    expect(await statesOf(fx, run.id)).toEqual({ x: 'available', y: 'available' });
  });

  it('reopens a branch that cancel_branch cancelled below a retried contained discard; the run keeps running', async () => {
    const def = workflow('rt-branch')
      .task('a', 'rt5.a')
      .task('b', 'rt5.b', { dependsOn: ['a'], onDepFailure: OnDepFailure.CancelBranch })
      .task('c', 'rt5.c')
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    const a = await claimOne(fx, 'rt5.a');
    await fx.store.fail(failure(a.id, a.claimToken));
    expect(await statesOf(fx, run.id)).toEqual({ a: 'discarded', b: 'cancelled', c: 'available' });
    expect((await fx.run(run.id)).state).toBe('running');
    await fx.store.retryRun(run.id, { node: 'a' });
    expect(await statesOf(fx, run.id)).toEqual({ a: 'available', b: 'pending', c: 'available' });
    expect((await fx.run(run.id)).open_steps).toBe(3);
  });

  it('refuses what is not an exhausted node, with the reason, and changes nothing', async () => {
    const { runId } = await failedRun(fx, 'rt6');
    const events = await fx.events(runId);
    const cancelled = await fx.store.retryRun(runId, { node: 'c' }).catch((e: unknown) => e);
    expect(cancelled).toBeInstanceOf(NoExhaustedNodeError);
    expect(cancelled).toMatchObject({ code: 'NO_EXHAUSTED_NODE', reason: 'terminal' });
    const unknownNode = await fx.store.retryRun(runId, { node: 'nope' }).catch((e: unknown) => e);
    expect(unknownNode).toBeInstanceOf(NotFoundError);
    expect(unknownNode).toMatchObject({ entity: 'node', id: 'nope' });
    const unknownRun = await fx.store
      .retryRun('00000000-0000-7000-8000-000000000000', { all: true })
      .catch((e: unknown) => e);
    expect(unknownRun).toMatchObject({ code: 'NOT_FOUND', entity: 'run' });
    expect(await fx.events(runId)).toEqual(events);

    const live = runOfDefinition(workflow('rt-live').task('p', 'rt7.p').build(), 'null');
    await fx.submit(live);
    await claimOne(fx, 'rt7.p');
    const running = await fx.store.retryRun(live.id, { node: 'p' }).catch((e: unknown) => e);
    expect(running).toMatchObject({ code: 'NO_EXHAUSTED_NODE', reason: 'wrong-trigger' });
    const none = await fx.store.retryRun(live.id, { all: true }).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(NoExhaustedNodeError);

    // Any step of a cancelled run.
    const gone = await failedRun(fx, 'rt8');
    await fx.query(`UPDATE cyclone_runs SET state = 'cancelled' WHERE id = $1`, [gone.runId]);
    const ofCancelled = await fx.store.retryRun(gone.runId, { node: 'a' }).catch((e: unknown) => e);
    expect(ofCancelled).toBeInstanceOf(NoExhaustedNodeError);
    expect(await statesOf(fx, gone.runId)).toMatchObject({ a: 'discarded' });
  });

  it('refuses a retry in a paused run: resume it first', async () => {
    const def = workflow('rt-paused')
      .task('a', 'rt9.a')
      .task('b', 'rt9.b', { dependsOn: ['a'], onDepFailure: OnDepFailure.CancelBranch })
      .task('c', 'rt9.c')
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    const a = await claimOne(fx, 'rt9.a');
    await fx.store.fail(failure(a.id, a.claimToken));
    await fx.store.pauseRun(run.id);
    const error = await fx.store.retryRun(run.id, { node: 'a' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AlreadyPausedError);
    expect((await fx.step(await stepOf(fx, run.id, 'a'))).state).toBe('discarded');
  });
});
