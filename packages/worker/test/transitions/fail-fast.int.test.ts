import { describe, expect, it } from 'vitest';
import { permanent, RunFailedError, workflow } from '@cyclone/core';
import { eventually, gate } from '../engine.js';
import { eventRows, runRow, stepReaches, stepRows, useTransitionEngine } from './helpers.js';

const engine = useTransitionEngine();

describe('fail-fast', () => {
  it('cancels the pending, available and running steps of a run when one node is discarded, and fails the run', async () => {
    const order = workflow('fail-fast')
      .task('held', 'ff.held')
      .task('after', 'ff.after', { dependsOn: ['held'] })
      .task('orphan', 'ff.nobody')
      .task('boom', 'ff.boom')
      .build();
    const heldRelease = gate();
    const boomRelease = gate();
    const aborted = gate<unknown>();
    let heldFinished = false;
    // No worker handles ff.nobody, so `orphan` stays available; `after` waits on `held`.
    await engine.startWorker({
      handlers: {
        'ff.held': async (ctx) => {
          ctx.signal.addEventListener('abort', () => aborted.open(ctx.signal.reason), {
            once: true,
          });
          await heldRelease.promise;
          heldFinished = true;
          return 'late output';
        },
        'ff.boom': async () => {
          await boomRelease.promise;
          throw permanent(new Error('inventory gone'));
        },
        'ff.after': () => 'never',
      },
      heartbeatInterval: '50ms',
    });
    const { runId } = await engine.client.submit(order, null);
    const held = await stepReaches(engine, runId, 'held', 'running');
    await stepReaches(engine, runId, 'boom', 'running');
    const before = await stepRows(engine, runId);
    expect([before.after!.state, before.orphan!.state]).toEqual(['pending', 'available']);

    boomRelease.open();
    const run = await engine.client.wait(runId, { timeout: '10s' });
    expect(run.state).toBe('failed');

    const steps = await stepRows(engine, runId);
    expect(Object.fromEntries(Object.values(steps).map((s) => [s.node, s.state]))).toEqual({
      held: 'cancelled',
      after: 'cancelled',
      orphan: 'cancelled',
      boom: 'discarded',
    });
    for (const node of ['held', 'after', 'orphan']) {
      const step = steps[node]!;
      expect(step.ended_at).toBeInstanceOf(Date);
      expect(step.lease_expires_at).toBeNull();
      expect(step.attempts).toBe(0);
      expect(step.output).toBeNull();
    }
    expect(steps.boom).toMatchObject({
      attempts: 1,
      error_kind: 'permanent',
      error: 'inventory gone',
    });

    const row = await runRow(engine, runId);
    expect(row).toMatchObject({
      state: 'failed',
      error_kind: 'permanent',
      error: 'inventory gone',
      failed_node: 'boom',
      open_steps: 0,
    });
    expect(row.ended_at).toBeInstanceOf(Date);

    const events = await eventRows(engine, runId);
    const cancelled = events
      .filter((e) => e.type === 'step_cancelled_fail_fast')
      .map((e) => [e.node, e.from_state, e.to_state, e.step_id]);
    expect(cancelled).toEqual(
      expect.arrayContaining([
        ['held', 'running', 'cancelled', held.id],
        ['after', 'pending', 'cancelled', steps.after!.id],
        ['orphan', 'available', 'cancelled', steps.orphan!.id],
      ]),
    );
    expect(cancelled).toHaveLength(3);
    const discardAt = events.findIndex((e) => e.type === 'step_discarded');
    const failedAt = events.findIndex((e) => e.type === 'run_failed');
    expect(discardAt).toBeGreaterThan(0);
    expect(failedAt).toBe(events.length - 1);
    expect(events[failedAt]).toMatchObject({
      from_state: 'running',
      to_state: 'failed',
      error_kind: 'permanent',
    });

    // The running handler is told to stop once its heartbeat finds the lease gone.
    const reason = await aborted.promise;
    expect(String((reason as Error).message)).toMatch(/lease lost/);

    // Its late result changes nothing.
    heldRelease.open();
    await eventually(() => heldFinished, 'the held handler to return');
    const afterAll = await stepRows(engine, runId);
    expect(afterAll.held).toMatchObject({ state: 'cancelled', output: null, attempts: 0 });
    expect((await eventRows(engine, runId)).length).toBe(events.length);

    const error = await engine.client.result(runId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunFailedError);
    expect(error).toMatchObject({ state: 'failed', errorKind: 'permanent', failedNode: 'boom' });
  });

  it('stops a run with no other open steps: the run fails with just the discard', async () => {
    await engine.startWorker({
      handlers: {
        'ff.solo': () => {
          throw permanent('nope');
        },
      },
    });
    const { runId } = await engine.client.enqueue('ff.solo', null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const types = (await eventRows(engine, runId)).map((e) => e.type);
    expect(types.filter((t) => t.startsWith('step_cancelled'))).toEqual([]);
    expect(await runRow(engine, runId)).toMatchObject({
      state: 'failed',
      error: 'nope',
      error_kind: 'permanent',
      failed_node: 'ff.solo',
      open_steps: 0,
    });
  });
});
