import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { claimOne, useStore } from '../fixture.js';

const fx = useStore();

const failure = (stepId: string, claimToken: string, over: Record<string, unknown> = {}) => ({
  stepId,
  claimToken,
  errorKind: 'retryable' as const,
  error: 'boom',
  panicStack: null,
  attempts: 0,
  maxAttempts: 3,
  retryDelayMs: 60_000,
  ...over,
});

describe('fail', () => {
  it('gives a retryable failure back to available after its backoff, charging the attempt', async () => {
    const { runId, stepId } = await fx.job('fail.retry', { maxAttempts: 3 });
    const claimed = await claimOne(fx, 'fail.retry');
    expect(await fx.store.fail(failure(stepId, claimed.claimToken))).toBe('retried');
    const step = await fx.step(stepId);
    expect(step).toMatchObject({
      state: 'available',
      attempts: 1,
      error: 'boom',
      error_kind: 'retryable',
    });
    expect(step.scheduled_at.getTime()).toBeGreaterThan(Date.now() + 30_000);
    expect((await fx.run(runId)).failure_count).toBe(1);
    expect((await fx.events(runId)).at(-1)).toEqual([
      'step_retry_scheduled',
      'running',
      'available',
      'retryable_error',
    ]);
  });

  it('sends the step on to paused, by the same trigger, when its run is paused', async () => {
    const { runId, stepId } = await fx.job('fail.paused', { maxAttempts: 3 });
    const claimed = await claimOne(fx, 'fail.paused');
    // The run was paused while the step ran (pause itself is not a store operation yet).
    await fx.query(`UPDATE cyclone_runs SET state = 'paused', paused_at = now() WHERE id = $1`, [
      runId,
    ]);
    expect(await fx.store.fail(failure(stepId, claimed.claimToken))).toBe('retried');
    expect(await fx.step(stepId)).toMatchObject({ state: 'paused', attempts: 1 });
    expect((await fx.events(runId)).at(-1)).toEqual([
      'step_retry_scheduled',
      'running',
      'paused',
      'retryable_error',
    ]);
  });

  it('discards on a permanent failure and fails the run, cancelling the rest by fail_fast', async () => {
    const def = workflow('fail-fast-store')
      .task('x', 'ff.x')
      .task('y', 'ff.y')
      .task('z', 'ff.z', { dependsOn: ['y'] })
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    const x = await claimOne(fx, 'ff.x');
    const outcome = await fx.store.fail(
      failure(x.id, x.claimToken, { errorKind: 'permanent', error: 'bad card' }),
    );
    expect(outcome).toBe('discarded');
    const states = await fx.query<{ node: string; state: string }>(
      'SELECT node, state FROM cyclone_steps WHERE run_id = $1 ORDER BY node',
      [run.id],
    );
    expect(states).toEqual([
      { node: 'x', state: 'discarded' },
      { node: 'y', state: 'cancelled' },
      { node: 'z', state: 'cancelled' },
    ]);
    expect(await fx.run(run.id)).toMatchObject({
      state: 'failed',
      error_kind: 'permanent',
      error: 'bad card',
      failed_node: 'x',
      open_steps: 0,
    });
    const events = await fx.events(run.id);
    expect(events).toContainEqual(['step_discarded', 'running', 'discarded', 'permanent_error']);
    expect(events).toContainEqual([
      'step_cancelled_fail_fast',
      'pending',
      'cancelled',
      'fail_fast',
    ]);
    expect(events).toContainEqual([
      'step_cancelled_fail_fast',
      'available',
      'cancelled',
      'fail_fast',
    ]);
    expect(events.at(-1)).toEqual(['run_failed', 'running', 'failed', 'discard_uncontained']);
  });

  it('discards a retryable failure of the last attempt as attempts_exhausted', async () => {
    const { runId, stepId } = await fx.job('fail.last', { maxAttempts: 1 });
    const claimed = await claimOne(fx, 'fail.last');
    expect(await fx.store.fail(failure(stepId, claimed.claimToken, { maxAttempts: 1 }))).toBe(
      'discarded',
    );
    expect(await fx.step(stepId)).toMatchObject({ state: 'discarded', attempts: 1 });
    expect(await fx.events(runId)).toContainEqual([
      'step_discarded',
      'running',
      'discarded',
      'attempts_exhausted',
    ]);
  });

  it('is fenced when the claim moved on', async () => {
    const { stepId } = await fx.job('fail.fenced');
    await claimOne(fx, 'fail.fenced');
    const outcome = await fx.store.fail(failure(stepId, '00000000-0000-4000-8000-000000000000'));
    expect(outcome).toBe('fenced');
    expect((await fx.step(stepId)).state).toBe('running');
  });
});

describe('snooze and release', () => {
  it('snoozes without charging an attempt', async () => {
    const { runId, stepId } = await fx.job('snooze.job');
    const claimed = await claimOne(fx, 'snooze.job');
    expect(await fx.store.snooze(stepId, claimed.claimToken, 60_000)).toBe(true);
    expect(await fx.step(stepId)).toMatchObject({
      state: 'available',
      attempts: 0,
      error_kind: 'snooze',
    });
    expect((await fx.events(runId)).at(-1)).toEqual([
      'step_snoozed',
      'running',
      'available',
      'snooze',
    ]);
  });

  it('releases without charging an attempt or a reclaim, claimable at once', async () => {
    const { runId, stepId } = await fx.job('release.job');
    const claimed = await claimOne(fx, 'release.job');
    expect(await fx.store.release(stepId, claimed.claimToken)).toBe(true);
    expect(await fx.step(stepId)).toMatchObject({ state: 'available', attempts: 0, reclaims: 0 });
    expect((await fx.events(runId)).at(-1)).toEqual([
      'step_released',
      'running',
      'available',
      'release',
    ]);
    expect((await claimOne(fx, 'release.job')).id).toBe(stepId);
  });
});
