import { describe, expect, it } from 'vitest';
import { AlreadyPausedError, AlreadyTerminalError, NotPausedError, workflow } from '@cyclone/core';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { claimOne, useStore } from '../fixture.js';
import { failure, statesOf, stepOf } from './helpers.js';

const fx = useStore();

describe('pauseRun and resumeRun', () => {
  it('pauses available and waiting steps, keeps pending ones pending, and resumes each where it was', async () => {
    const def = workflow('pause-wf')
      .task('t', 'pr.t')
      .task('after', 'pr.after', { dependsOn: ['t'] })
      .waitSignal('w', { signal: 'go', maxWait: '1h' })
      .waitTimer('tm', { waitFor: '1h' })
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    const [w, tm, t] = await Promise.all(['w', 'tm', 't'].map((n) => stepOf(fx, run.id, n)));
    // Waits do not run in the engine yet: give them the deadline and timer promotion would set.
    await fx.query(
      `UPDATE cyclone_steps SET wait_deadline_at = now() + interval '1 hour',
              wait_payloads = '["kept"]'::jsonb WHERE id = $1`,
      [w],
    );
    await fx.query(
      `UPDATE cyclone_steps SET scheduled_at = now() + interval '1 hour' WHERE id = $1`,
      [tm],
    );
    const before = await fx.query<{
      id: string;
      scheduled_at: Date;
      wait_deadline_at: Date | null;
    }>('SELECT id, scheduled_at, wait_deadline_at FROM cyclone_steps WHERE run_id = $1', [run.id]);

    await fx.store.pauseRun(run.id);
    expect(await statesOf(fx, run.id)).toEqual({
      t: 'paused',
      after: 'pending',
      w: 'paused',
      tm: 'paused',
    });
    expect((await fx.run(run.id)).state).toBe('paused');
    expect((await fx.run(run.id)).paused_at).not.toBeNull();
    // No claim takes a paused step.
    expect(
      await fx.store.claim({ kinds: ['pr.t'], limit: 5, workerId: 'w', leaseMs: 60_000 }),
    ).toEqual([]);
    // The pause lasts a measurable time by the database clock.
    await fx.query(
      `UPDATE cyclone_runs SET paused_at = paused_at - interval '10 minutes' WHERE id = $1`,
      [run.id],
    );

    await fx.store.resumeRun(run.id);
    expect(await statesOf(fx, run.id)).toEqual({
      t: 'available',
      after: 'pending',
      w: 'waiting_signal',
      tm: 'waiting_timer',
    });
    const after = new Map(
      (
        await fx.query<{
          id: string;
          scheduled_at: Date;
          wait_deadline_at: Date | null;
          wait_payloads: unknown;
        }>(
          'SELECT id, scheduled_at, wait_deadline_at, wait_payloads FROM cyclone_steps WHERE run_id = $1',
          [run.id],
        )
      ).map((r) => [r.id, r]),
    );
    const was = new Map(before.map((r) => [r.id, r]));
    const shift = (id: string | undefined, col: 'scheduled_at' | 'wait_deadline_at') =>
      after.get(id!)![col]!.getTime() - was.get(id!)![col]!.getTime();
    expect(shift(t, 'scheduled_at')).toBe(0);
    expect(shift(tm, 'scheduled_at')).toBeGreaterThanOrEqual(10 * 60_000);
    expect(shift(tm, 'scheduled_at')).toBeLessThan(11 * 60_000);
    expect(shift(w, 'wait_deadline_at')).toBeGreaterThanOrEqual(10 * 60_000);
    expect(shift(w, 'wait_deadline_at')).toBeLessThan(11 * 60_000);
    expect(after.get(w!)!.wait_payloads).toEqual(['kept']);
    expect(await fx.run(run.id)).toMatchObject({ state: 'running', paused_at: null });
    const events = await fx.events(run.id);
    for (const from of ['available', 'waiting_signal', 'waiting_timer']) {
      expect(events).toContainEqual(['step_paused', from, 'paused', 'pause']);
      expect(events).toContainEqual(['step_resumed', 'paused', from, 'resume']);
    }
    expect(events).toContainEqual(['run_paused', 'running', 'paused', 'pause']);
    expect(events).toContainEqual(['run_resumed', 'paused', 'running', 'resume']);
  });

  it('pauses and resumes a waiting_child node, which keeps the time it had left', async () => {
    await fx.store.registerWorkflows([
      workflow('pause-child-kid').waitSignal('go', { signal: 'go' }).build(),
    ]);
    const def = workflow('pause-child')
      .child('c', { workflow: 'pause-child-kid', maxWait: '1h' })
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    const c = await stepOf(fx, run.id, 'c');
    expect(await fx.step(c)).toMatchObject({ state: 'waiting_child' });
    const was = (await fx.step(c)).wait_deadline_at!;
    await fx.store.pauseRun(run.id);
    expect((await fx.step(c)).state).toBe('paused');
    await fx.query(
      `UPDATE cyclone_runs SET paused_at = paused_at - interval '5 minutes' WHERE id = $1`,
      [run.id],
    );
    await fx.store.resumeRun(run.id);
    const step = await fx.step(c);
    expect(step.state).toBe('waiting_child');
    expect(step.wait_deadline_at!.getTime() - was.getTime()).toBeGreaterThanOrEqual(5 * 60_000);
    expect(await fx.events(run.id)).toContainEqual([
      'step_resumed',
      'paused',
      'waiting_child',
      'resume',
    ]);
  });

  it('a completion during the pause leaves dependents pending; resume promotes them', async () => {
    const def = workflow('pause-promote')
      .task('a', 'pp.a')
      .task('b', 'pp.b', { dependsOn: ['a'] })
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    const a = await claimOne(fx, 'pp.a');
    await fx.store.pauseRun(run.id);
    await fx.store.complete([{ stepId: a.id, claimToken: a.claimToken, outputJson: '1' }]);
    expect(await statesOf(fx, run.id)).toEqual({ a: 'completed', b: 'pending' });
    expect(
      await fx.store.claim({ kinds: ['pp.b'], limit: 1, workerId: 'w', leaseMs: 60_000 }),
    ).toEqual([]);
    await fx.store.resumeRun(run.id);
    expect(await statesOf(fx, run.id)).toEqual({ a: 'completed', b: 'available' });
    expect(await fx.events(run.id)).toContainEqual([
      'step_ready',
      'pending',
      'available',
      'promote',
    ]);
  });

  it('a retryable failure, a snooze or a reclaim during the pause lands in paused', async () => {
    const def = workflow('pause-land')
      .task('f', 'pl.f')
      .task('s', 'pl.s')
      .task('r', 'pl.r')
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    const f = await claimOne(fx, 'pl.f');
    const s = await claimOne(fx, 'pl.s');
    const r = await claimOne(fx, 'pl.r', 60_000);
    await fx.store.pauseRun(run.id);
    await fx.store.fail(failure(f.id, f.claimToken, { errorKind: 'retryable', maxAttempts: 3 }));
    await fx.store.snooze(s.id, s.claimToken, 10);
    await fx.query(
      `UPDATE cyclone_steps SET lease_expires_at = now() - interval '1 second' WHERE id = $1`,
      [r.id],
    );
    await fx.store.reclaimExpired();
    expect(await statesOf(fx, run.id)).toEqual({ f: 'paused', s: 'paused', r: 'paused' });
    const events = await fx.events(run.id);
    for (const trigger of ['retryable_error', 'snooze', 'reclaim']) {
      expect(events.some((e) => e[1] === 'running' && e[2] === 'paused' && e[3] === trigger)).toBe(
        true,
      );
    }
  });

  it('a step in flight at the pause completes the run (paused -> completed) or fails it (paused -> failed)', async () => {
    const one = runOfDefinition(workflow('pause-complete').task('x', 'pcx.x').build(), 'null');
    await fx.submit(one);
    const x = await claimOne(fx, 'pcx.x');
    await fx.store.pauseRun(one.id);
    await fx.store.complete([{ stepId: x.id, claimToken: x.claimToken, outputJson: '1' }]);
    expect(await fx.run(one.id)).toMatchObject({ state: 'completed' });
    expect((await fx.events(one.id)).at(-1)).toEqual([
      'run_completed',
      'paused',
      'completed',
      'complete',
    ]);

    const two = runOfDefinition(
      workflow('pause-fail').task('y', 'pfx.y').task('z', 'pfx.z').build(),
      'null',
    );
    await fx.submit(two);
    const y = await claimOne(fx, 'pfx.y');
    await fx.store.pauseRun(two.id);
    await fx.store.fail(failure(y.id, y.claimToken));
    expect(await statesOf(fx, two.id)).toEqual({ y: 'discarded', z: 'cancelled' });
    const events = await fx.events(two.id);
    expect(events).toContainEqual(['step_cancelled_fail_fast', 'paused', 'cancelled', 'fail_fast']);
    expect(events.at(-1)).toEqual(['run_failed', 'paused', 'failed', 'discard_uncontained']);
  });

  it('refuses with typed errors and their reasons, and changes nothing', async () => {
    const { runId } = await fx.job('pr.refuse');
    const resumeRunning = await fx.store.resumeRun(runId).catch((e: unknown) => e);
    expect(resumeRunning).toBeInstanceOf(NotPausedError);
    expect(resumeRunning).toMatchObject({ code: 'NOT_PAUSED', reason: 'same-state' });
    await fx.store.pauseRun(runId);
    const events = await fx.events(runId);
    const again = await fx.store.pauseRun(runId).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(AlreadyPausedError);
    expect(again).toMatchObject({ code: 'ALREADY_PAUSED', reason: 'same-state' });
    expect(await fx.events(runId)).toEqual(events);
    await fx.store.cancelRun(runId);
    const terminal = await fx.store.pauseRun(runId).catch((e: unknown) => e);
    expect(terminal).toBeInstanceOf(AlreadyTerminalError);
    expect(terminal).toMatchObject({ reason: 'terminal' });
    expect(await fx.store.resumeRun(runId).catch((e: unknown) => e)).toBeInstanceOf(NotPausedError);
  });
});
