import { describe, expect, it } from 'vitest';
import { AlreadyTerminalError, permanent, workflow } from '@cyclone/core';
import { eventually, gate } from '../engine.js';
import { eventRows, runRow, stepReaches, stepRows, useTransitionEngine } from './helpers.js';

const engine = useTransitionEngine();

const statesOf = async (runId: string) =>
  Object.fromEntries(Object.values(await stepRows(engine, runId)).map((s) => [s.node, s.state]));

describe('operator controls through client and worker', () => {
  it('cancel aborts a running handler at once by notification, not at the next heartbeat', async () => {
    const aborted = gate<unknown>();
    const finish = gate();
    await engine.startWorker({
      handlers: {
        'op.slow': async (ctx) => {
          ctx.signal.addEventListener('abort', () => aborted.open(ctx.signal.reason), {
            once: true,
          });
          await finish.promise;
          return 'late';
        },
      },
      // A heartbeat this far away cannot be what aborts the handler within the test's bound.
      heartbeatInterval: '60s',
      leaseDuration: '5m',
    });
    const def = workflow('op-cancel')
      .task('slow', 'op.slow')
      .task('after', 'op.after', { dependsOn: ['slow'] })
      .build();
    const { runId } = await engine.client.submit(def, null);
    await stepReaches(engine, runId, 'slow', 'running');
    await engine.client.cancel(runId);
    const reason = await Promise.race([
      aborted.promise,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error('no abort within 10s')), 10_000),
      ),
    ]);
    expect(String(reason)).toMatch(/cancelled/);
    finish.open();
    expect(await statesOf(runId)).toEqual({ slow: 'cancelled', after: 'cancelled' });
    expect(await runRow(engine, runId)).toMatchObject({ state: 'cancelled', open_steps: 0 });
    // The late return is fenced out: the step stays cancelled, no completion event is written.
    await eventually(
      async () => (await stepRows(engine, runId)).slow!.state === 'cancelled',
      'cancelled',
    );
    const types = (await eventRows(engine, runId)).map((e) => e.type);
    expect(types).not.toContain('step_completed');
    await expect(engine.client.cancel(runId)).rejects.toBeInstanceOf(AlreadyTerminalError);
  });

  it('retry reopens a failed run and it completes normally through the worker', async () => {
    let failNext = true;
    await engine.startWorker({
      handlers: {
        'op.flaky': () => {
          if (failNext) throw permanent(new Error('not yet'));
          return 'ok';
        },
        'op.next': () => 'next',
        'op.side': () => 'side',
      },
    });
    const def = workflow('op-retry')
      .task('flaky', 'op.flaky')
      .task('next', 'op.next', { dependsOn: ['flaky'] })
      .build();
    const { runId } = await engine.client.submit(def, null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const [entry] = (await engine.client.listExhausted({ workflow: 'op-retry' })).steps;
    expect(entry).toMatchObject({ runId, node: 'flaky', reason: 'permanent', attempts: 1 });
    failNext = false;
    await engine.client.retry(runId, 'flaky');
    const run = await eventually(async () => {
      const r = await runRow(engine, runId);
      return r.state === 'completed' ? r : undefined;
    }, 'the retried run to complete');
    expect(run.open_steps).toBe(0);
    expect(await statesOf(runId)).toEqual({ flaky: 'completed', next: 'completed' });
    expect((await stepRows(engine, runId)).flaky!.attempts).toBe(2);
    expect((await engine.client.listExhausted({ workflow: 'op-retry' })).steps).toHaveLength(0);
  });

  it('pause holds new work back and resume lets the run finish', async () => {
    const release = gate();
    await engine.startWorker({
      handlers: {
        'op.first': async () => {
          await release.promise;
          return 1;
        },
        'op.second': () => 2,
      },
    });
    const def = workflow('op-pause')
      .task('first', 'op.first')
      .task('second', 'op.second', { dependsOn: ['first'] })
      .build();
    const { runId } = await engine.client.submit(def, null);
    await stepReaches(engine, runId, 'first', 'running');
    await engine.client.run(runId).pause();
    release.open();
    await stepReaches(engine, runId, 'first', 'completed');
    // The completion in the pause leaves `second` pending, and the run paused.
    expect(await statesOf(runId)).toEqual({ first: 'completed', second: 'pending' });
    expect((await runRow(engine, runId)).state).toBe('paused');
    await engine.client.run(runId).resume();
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
  });
});

describe('time enforcement in the worker process', () => {
  it('Worker({ scheduler: true }) fails a run past its deadline and aborts its running handler', async () => {
    const aborted = gate<unknown>();
    await engine.startWorker({
      handlers: {
        'dl.long': async (ctx) => {
          ctx.signal.addEventListener('abort', () => aborted.open(ctx.signal.reason), {
            once: true,
          });
          await aborted.promise;
          return 'late';
        },
      },
      heartbeatInterval: '60s',
      leaseDuration: '5m',
      scheduler: { interval: '100ms' },
      retention: false,
    });
    const def = workflow('op-deadline')
      .task('long', 'dl.long')
      .task('then', 'dl.then', { dependsOn: ['long'] })
      .build();
    const { runId } = await engine.client.submit(def, null, { runDeadline: '1h' });
    await stepReaches(engine, runId, 'long', 'running');
    // A controllable clock: the deadline is moved into the past instead of waited for.
    await engine.query(`UPDATE cyclone_runs SET deadline_at = now() WHERE id = $1`, [runId]);
    const run = await engine.client.wait(runId, { timeout: '10s' });
    expect(run).toMatchObject({ state: 'failed', errorKind: 'deadline' });
    expect(String(await aborted.promise)).toMatch(/deadline/);
    const steps = await stepRows(engine, runId);
    expect([steps.long!.state, steps.long!.error_kind, steps.then!.state]).toEqual([
      'discarded',
      'deadline',
      'discarded',
    ]);
  });
});

describe('races', () => {
  it('a cancel racing a completion: exactly one wins, and the outcome is consistent (30 trials)', async () => {
    const worker = await engine.startWorker({
      handlers: { 'race.quick': () => 'done' },
      concurrency: 4,
    });
    expect(worker).toBeDefined();
    let cancelled = 0;
    let completed = 0;
    for (let i = 0; i < 30; i++) {
      const { runId } = await engine.client.enqueue('race.quick', i);
      const cancel = engine.client.cancel(runId).then(
        () => 'cancel',
        (e: unknown) => (e instanceof AlreadyTerminalError ? 'late' : Promise.reject(e)),
      );
      const outcome = await cancel;
      const run = await engine.client.wait(runId, { timeout: '10s' });
      const [step] = Object.values(await stepRows(engine, runId));
      if (outcome === 'cancel') {
        expect(run.state).toBe('cancelled');
        expect(step!.state).toBe('cancelled');
        cancelled++;
      } else {
        expect(run.state).toBe('completed');
        expect(step!.state).toBe('completed');
        completed++;
      }
      const types = (await eventRows(engine, runId)).map((e) => e.type);
      expect(types.includes('step_completed') && types.includes('step_cancelled_cancel')).toBe(
        false,
      );
      // No retry after a cancel: a cancelled run has nothing to retry.
      if (outcome === 'cancel')
        await expect(engine.client.retryAll(runId)).rejects.toMatchObject({
          code: 'NO_EXHAUSTED_NODE',
        });
    }
    expect(cancelled + completed).toBe(30);
  });

  it('a pause racing claims: nothing starts after the pause commits (30 trials)', async () => {
    await engine.startWorker({
      handlers: { 'race.claim': () => 'x' },
      concurrency: 4,
    });
    let pausedTrials = 0;
    for (let i = 0; i < 30; i++) {
      const def = workflow(`race-pause-${i % 3}`)
        .task('a', 'race.claim')
        .task('b', 'race.claim')
        .task('c', 'race.claim', { dependsOn: ['a'] })
        .task('d', 'race.claim', { dependsOn: ['c'] })
        .build();
      const { runId } = await engine.client.submit(def, null);
      const refused = await engine.client
        .run(runId)
        .pause()
        .then(
          () => false,
          (e: unknown) => (e instanceof AlreadyTerminalError ? true : Promise.reject(e)),
        );
      // The run may have finished before the pause: then there is nothing to race.
      if (refused) continue;
      pausedTrials++;
      // Let whatever was claimed before the pause finish, then read the history.
      await eventually(
        async () =>
          !(
            await engine.query<{ state: string }>(
              'SELECT state FROM cyclone_steps WHERE run_id = $1',
              [runId],
            )
          ).some((r) => r.state === 'running'),
        'the steps claimed before the pause to finish',
      );
      const events = await eventRows(engine, runId);
      const pausedAt = events.find((e) => e.type === 'run_paused')!.id;
      // No claim was recorded after the pause, and no step is claimable in the paused run.
      expect(
        events.filter((e) => e.trigger === 'claim' && Number(e.id) > Number(pausedAt)),
      ).toEqual([]);
      expect(
        Object.values(await statesOf(runId)).some((s) => s === 'available' || s === 'running'),
      ).toBe(false);
      // A run whose last steps were claimed before the pause may have completed in it since.
      await engine.client
        .cancel(runId)
        .catch((e: unknown) => (e instanceof AlreadyTerminalError ? undefined : Promise.reject(e)));
    }
    expect(pausedTrials).toBeGreaterThan(0);
  });
});
