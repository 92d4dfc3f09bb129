import { describe, expect, it } from 'vitest';
import { AlreadyTerminalError, NotFoundError, workflow } from '@cyclone/core';
import { runOfDefinition, runOfJob } from '../../src/tables/runs/new-runs.js';
import { claimOne, useStore } from '../fixture.js';
import { statesOf, stepOf } from './helpers.js';

const fx = useStore();

describe('cancelRun', () => {
  it('cancels every non-terminal step and the run; completed steps stay completed', async () => {
    const def = workflow('cancel-wf')
      .task('done', 'cx.done')
      .task('run', 'cx.run')
      .task('avail', 'cx.avail')
      .task('later', 'cx.later', { dependsOn: ['done', 'run'] })
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    const done = await claimOne(fx, 'cx.done');
    await fx.store.complete([{ stepId: done.id, claimToken: done.claimToken, outputJson: '1' }]);
    const running = await claimOne(fx, 'cx.run');

    await fx.store.cancelRun(run.id);

    expect(await statesOf(fx, run.id)).toEqual({
      done: 'completed',
      run: 'cancelled',
      avail: 'cancelled',
      later: 'cancelled',
    });
    expect(await fx.run(run.id)).toMatchObject({ state: 'cancelled', open_steps: 0 });
    expect((await fx.run(run.id)).ended_at).not.toBeNull();
    const events = await fx.events(run.id);
    expect(events).toContainEqual(['step_cancelled_cancel', 'running', 'cancelled', 'cancel']);
    expect(events).toContainEqual(['step_cancelled_cancel', 'available', 'cancelled', 'cancel']);
    expect(events).toContainEqual(['step_cancelled_cancel', 'pending', 'cancelled', 'cancel']);
    expect(events.at(-1)).toEqual(['run_cancelled', 'running', 'cancelled', 'cancel']);
    // The fence: the cancelled step's late completion is dropped.
    const accepted = await fx.store.complete([
      { stepId: running.id, claimToken: running.claimToken, outputJson: '2' },
    ]);
    expect(accepted.size).toBe(0);
    expect((await fx.step(running.id)).state).toBe('cancelled');
  });

  it('cancels a paused run, its paused, waiting and waiting_child steps, and the child run', async () => {
    const def = workflow('cancel-paused')
      .task('t', 'cp.t')
      .waitSignal('w', { signal: 'go' })
      .waitTimer('tm', { waitFor: '1h' })
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    const child = runOfJob('cp.child', 'null', { parentRunId: run.id });
    await fx.submit(child);
    // A child node waiting on its child run, set up by hand: the engine starts child runs later.
    const tm = await stepOf(fx, run.id, 'tm');
    await fx.query(
      `UPDATE cyclone_steps SET node_type = 'child', state = 'waiting_child', child_run_id = $2
       WHERE id = $1`,
      [tm, child.id],
    );
    await fx.store.pauseRun(run.id);
    expect(await statesOf(fx, run.id)).toEqual({ t: 'paused', w: 'paused', tm: 'paused' });

    await fx.store.cancelRun(run.id);

    expect(await statesOf(fx, run.id)).toEqual({ t: 'cancelled', w: 'cancelled', tm: 'cancelled' });
    expect(await fx.run(run.id)).toMatchObject({ state: 'cancelled', paused_at: null });
    expect(await fx.run(child.id)).toMatchObject({ state: 'cancelled' });
    expect(await statesOf(fx, child.id)).toEqual({ 'cp.child': 'cancelled' });
    const events = await fx.events(run.id);
    expect(events).toContainEqual(['step_cancelled_cancel', 'paused', 'cancelled', 'cancel']);
    expect(events.at(-1)).toEqual(['run_cancelled', 'paused', 'cancelled', 'cancel']);
  });

  it('cancels waiting_signal and waiting_timer steps of a running run', async () => {
    const def = workflow('cancel-waits')
      .waitSignal('w', { signal: 'go' })
      .waitTimer('tm', { waitFor: '1h' })
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    expect(await statesOf(fx, run.id)).toEqual({ w: 'waiting_signal', tm: 'waiting_timer' });
    await fx.store.cancelRun(run.id);
    const events = await fx.events(run.id);
    expect(events).toContainEqual([
      'step_cancelled_cancel',
      'waiting_signal',
      'cancelled',
      'cancel',
    ]);
    expect(events).toContainEqual([
      'step_cancelled_cancel',
      'waiting_timer',
      'cancelled',
      'cancel',
    ]);
  });

  it('refuses a terminal run with AlreadyTerminalError (reason terminal) and changes nothing', async () => {
    const { runId } = await fx.job('cx.term');
    await fx.store.cancelRun(runId);
    const before = await fx.events(runId);
    const error = await fx.store.cancelRun(runId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AlreadyTerminalError);
    expect(error).toMatchObject({ code: 'ALREADY_TERMINAL', reason: 'terminal' });
    expect(await fx.events(runId)).toEqual(before);
  });

  it('names an unknown run', async () => {
    const error = await fx.store
      .cancelRun('00000000-0000-7000-8000-000000000000')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ entity: 'run' });
  });
});
