import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { AlreadyTerminalError, NotFoundError, OnDepFailure, workflow } from '@cyclone/core';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { claimOne, until, useStore } from '../fixture.js';

const fx = useStore();

/** Submits a definition and returns its run with each node's step id by name. */
async function start(def: ReturnType<ReturnType<typeof workflow>['build']>) {
  const run = runOfDefinition(def, 'null');
  await fx.submit(run);
  const ids = Object.fromEntries(run.steps.map((s) => [s.node, s.id]));
  return { runId: run.id, ids };
}

/** Claims and completes the one available step of `kind`. */
async function completeTask(kind: string, output = '"ok"') {
  const claimed = await claimOne(fx, kind);
  await fx.store.complete([
    { stepId: claimed.id, claimToken: claimed.claimToken, outputJson: output },
  ]);
  return claimed.id;
}

const signal = (runId: string, name: string, payload: unknown, signalId?: string) =>
  fx.store.signal({
    runId,
    name,
    payloadJson: JSON.stringify(payload),
    signalId: signalId ?? null,
  });

/** Runs the due-wait pass until `count` waits moved (each call is one scanner tick). */
async function tickUntil(what: 'fired' | 'lapsed', count = 1) {
  let moved = 0;
  await until(async () => {
    moved += (await fx.store.fireDueWaits())[what];
    return moved >= count;
  }, `${count} wait(s) ${what}`);
}

describe('signal waits', () => {
  it('inserts a root waitSignal waiting_signal; a signal completes it and the run', async () => {
    const def = workflow('w-root').waitSignal('approval', { signal: 'approved' }).build();
    const { runId, ids } = await start(def);
    expect(await fx.step(ids.approval!)).toMatchObject({
      state: 'waiting_signal',
      wait_deadline_at: null,
    });

    expect(await signal(runId, 'approved', { by: 'ann' })).toEqual({
      duplicate: false,
      consumedBy: 'approval',
    });
    expect(await fx.step(ids.approval!)).toMatchObject({
      state: 'completed',
      output: { payload: { by: 'ann' }, timedOut: false },
      timed_out: false,
      attempts: 0,
    });
    expect(await fx.run(runId)).toMatchObject({ state: 'completed', open_steps: 0 });
    const events = await fx.events(runId);
    expect(events).toContainEqual([
      'signal_consumed',
      'waiting_signal',
      'completed',
      'signal_consumed',
    ]);
    expect(events).toContainEqual(['run_completed', 'running', 'completed', 'complete']);
  });

  it('promotes pending -> waiting_signal when the dependency completes, with its max-wait deadline', async () => {
    const def = workflow('w-promote')
      .task('charge', 'wp.charge')
      .waitSignal('approval', { signal: 'approved', dependsOn: ['charge'], maxWait: '1h' })
      .task('ship', 'wp.ship', { dependsOn: ['approval'] })
      .build();
    const { runId, ids } = await start(def);
    expect(await fx.step(ids.approval!)).toMatchObject({ state: 'pending' });
    await completeTask('wp.charge');
    const wait = await fx.step(ids.approval!);
    expect(wait.state).toBe('waiting_signal');
    const charge = await fx.step(ids.charge!);
    expect(wait.wait_deadline_at!.getTime()).toBeGreaterThanOrEqual(
      charge.ended_at!.getTime() + 3_600_000,
    );
    // No worker can claim a wait node.
    expect(
      await fx.store.claim({
        kinds: ['wp.ship', 'wp.charge'],
        limit: 5,
        workerId: 'w',
        leaseMs: 1000,
      }),
    ).toEqual([]);
    expect(await fx.events(runId)).toContainEqual([
      'step_waiting',
      'pending',
      'waiting_signal',
      'promote',
    ]);

    await signal(runId, 'approved', 'yes');
    expect(await fx.step(ids.ship!)).toMatchObject({ state: 'available' });
    expect(await fx.query('SELECT 1 FROM cyclone_settlements WHERE run_id = $1', [runId])).toEqual(
      [],
    );
  });

  it('keeps a signal sent before any node waits, and the node consumes it at promotion', async () => {
    const def = workflow('w-early')
      .task('a', 'we.a')
      .waitSignal('approval', { signal: 'approved', dependsOn: ['a'] })
      .build();
    const { runId, ids } = await start(def);
    expect(await signal(runId, 'approved', 1)).toEqual({ duplicate: false, consumedBy: null });
    expect(await signal(runId, 'approved', 2)).toEqual({ duplicate: false, consumedBy: null });
    expect(
      await fx.query('SELECT name FROM cyclone_signals WHERE run_id = $1 AND consumed_by IS NULL', [
        runId,
      ]),
    ).toHaveLength(2);

    await completeTask('we.a');
    expect(await fx.step(ids.approval!)).toMatchObject({
      state: 'completed',
      output: { payload: 1, timedOut: false },
    });
    const signals = await fx.query<{ payload: unknown; consumed_by: string | null }>(
      'SELECT payload, consumed_by FROM cyclone_signals WHERE run_id = $1 ORDER BY id',
      [runId],
    );
    // Oldest first: the first signal was consumed, the second stays buffered.
    expect(signals).toEqual([
      { payload: 1, consumed_by: ids.approval },
      { payload: 2, consumed_by: null },
    ]);
    expect(await fx.run(runId)).toMatchObject({ state: 'completed' });
    const events = await fx.events(runId);
    expect(events).toContainEqual(['step_waiting', 'pending', 'waiting_signal', 'promote']);
    expect(events).toContainEqual([
      'signal_consumed',
      'waiting_signal',
      'completed',
      'signal_consumed',
    ]);
  });

  it('delivers the same signal id once', async () => {
    const def = workflow('w-dup').waitN('votes', { signal: 'vote', n: 2 }).build();
    const { runId, ids } = await start(def);
    expect(await signal(runId, 'vote', 'a', 'v-1')).toEqual({
      duplicate: false,
      consumedBy: 'votes',
    });
    expect(await signal(runId, 'vote', 'a-again', 'v-1')).toEqual({
      duplicate: true,
      consumedBy: 'votes',
    });
    expect(await fx.query('SELECT 1 FROM cyclone_signals WHERE run_id = $1', [runId])).toHaveLength(
      1,
    );
    expect(await fx.step(ids.votes!)).toMatchObject({
      state: 'waiting_signal',
      wait_payloads: ['a'],
    });
  });

  it('completes a waitAny with the name that arrived', async () => {
    const def = workflow('w-any')
      .waitAny('reply', { signals: ['accepted', 'declined'] })
      .build();
    const { runId, ids } = await start(def);
    await signal(runId, 'other', 0);
    await signal(runId, 'declined', { why: 'price' });
    expect(await fx.step(ids.reply!)).toMatchObject({
      state: 'completed',
      output: { signal: 'declined', payload: { why: 'price' }, timedOut: false },
    });
  });

  it('completes a waitN at its quorum with the payloads in arrival order', async () => {
    const def = workflow('w-quorum').waitN('votes', { signal: 'vote', n: 3 }).build();
    const { runId, ids } = await start(def);
    await signal(runId, 'vote', 'x');
    await signal(runId, 'vote', 'y');
    expect(await fx.step(ids.votes!)).toMatchObject({
      state: 'waiting_signal',
      wait_payloads: ['x', 'y'],
    });
    await signal(runId, 'vote', 'z');
    expect(await fx.step(ids.votes!)).toMatchObject({
      state: 'completed',
      output: { payloads: ['x', 'y', 'z'], timedOut: false },
    });
    expect(await fx.run(runId)).toMatchObject({ state: 'completed' });
  });

  it('lapses a waitN with the payloads it gathered: timedOut, wait_lapsed, not a re-queue', async () => {
    const def = workflow('w-lapse-n')
      .waitN('votes', { signal: 'vote', n: 3, maxWait: '200ms' })
      .build();
    const { runId, ids } = await start(def);
    await signal(runId, 'vote', 'only');
    await tickUntil('lapsed');
    expect(await fx.step(ids.votes!)).toMatchObject({
      state: 'completed',
      timed_out: true,
      output: { payloads: ['only'], timedOut: true },
    });
    expect(await fx.run(runId)).toMatchObject({ state: 'completed' });
    expect(await fx.events(runId)).toContainEqual([
      'wait_lapsed',
      'waiting_signal',
      'completed',
      'wait_lapsed',
    ]);
    // A second pass finds nothing: the lapse is idempotent.
    expect(await fx.store.fireDueWaits()).toEqual({ fired: 0, lapsed: 0, childrenLapsed: 0 });
  });

  it('lapses a waitSignal and a waitAny with null payloads', async () => {
    const def = workflow('w-lapse')
      .waitSignal('one', { signal: 's', maxWait: '100ms' })
      .waitAny('any', { signals: ['a', 'b'], maxWait: '100ms' })
      .build();
    const { ids } = await start(def);
    await tickUntil('lapsed', 2);
    expect(await fx.step(ids.one!)).toMatchObject({
      output: { payload: null, timedOut: true },
      timed_out: true,
    });
    expect(await fx.step(ids.any!)).toMatchObject({
      output: { signal: null, payload: null, timedOut: true },
      timed_out: true,
    });
  });

  it('refuses a signal to an unknown run or a terminal run, writing nothing', async () => {
    const missing = '0190c1a0-0000-7000-8000-000000000000';
    await expect(signal(missing, 's', 1)).rejects.toBeInstanceOf(NotFoundError);
    const def = workflow('w-term').waitSignal('w', { signal: 's' }).build();
    const { runId } = await start(def);
    await signal(runId, 's', 1);
    await expect(signal(runId, 's', 2)).rejects.toBeInstanceOf(AlreadyTerminalError);
    expect(await fx.query('SELECT 1 FROM cyclone_signals WHERE run_id = $1', [runId])).toHaveLength(
      1,
    );
  });
});

describe('timer waits', () => {
  it('inserts a root timer waiting_timer at now() + waitFor and never fires it early', async () => {
    const def = workflow('t-root')
      .waitTimer('later', { waitFor: '1h' })
      .waitTimer('soon', { waitFor: '150ms' })
      .build();
    const { runId, ids } = await start(def);
    const later = await fx.step(ids.later!);
    expect(later.state).toBe('waiting_timer');
    expect(later.scheduled_at.getTime()).toBeGreaterThanOrEqual(
      later.created_at.getTime() + 3_600_000,
    );

    await tickUntil('fired');
    const soon = await fx.step(ids.soon!);
    expect(soon.state).toBe('completed');
    const firedAt = new Date((soon.output as { firedAt: string }).firedAt);
    expect(firedAt.getTime()).toBeGreaterThanOrEqual(soon.scheduled_at.getTime());
    expect(await fx.step(ids.later!)).toMatchObject({ state: 'waiting_timer' });
    expect(await fx.run(runId)).toMatchObject({ state: 'running', open_steps: 1 });
    expect(await fx.events(runId)).toContainEqual([
      'timer_fired',
      'waiting_timer',
      'completed',
      'timer_fired',
    ]);
  });

  it('promotes pending -> waiting_timer at the dependency’s completion + waitFor, then fires and promotes', async () => {
    const def = workflow('t-promote')
      .task('a', 'tp.a')
      .waitTimer('cool-off', { waitFor: '100ms', dependsOn: ['a'] })
      .task('b', 'tp.b', { dependsOn: ['cool-off'] })
      .build();
    const { runId, ids } = await start(def);
    await completeTask('tp.a');
    const timer = await fx.step(ids['cool-off']!);
    const a = await fx.step(ids.a!);
    expect(timer.state).toBe('waiting_timer');
    expect(timer.scheduled_at.getTime()).toBeGreaterThanOrEqual(a.ended_at!.getTime() + 100);
    expect(await fx.events(runId)).toContainEqual([
      'step_waiting',
      'pending',
      'waiting_timer',
      'promote',
    ]);
    await tickUntil('fired');
    expect(await fx.step(ids.b!)).toMatchObject({ state: 'available' });
  });
});

describe('cancelling waits', () => {
  it('cancels waiting_signal and waiting_timer nodes by fail_fast when a discard fails the run', async () => {
    const def = workflow('c-ff')
      .task('x', 'cf.x')
      .waitSignal('w', { signal: 's' })
      .waitTimer('t', { waitFor: '1h' })
      .build();
    const { runId, ids } = await start(def);
    const x = await claimOne(fx, 'cf.x');
    await fx.store.fail({
      stepId: x.id,
      claimToken: x.claimToken,
      errorKind: 'permanent',
      error: 'no',
      panicStack: null,
      attempts: 0,
      maxAttempts: 1,
      retryDelayMs: 0,
    });
    expect(await fx.step(ids.w!)).toMatchObject({ state: 'cancelled' });
    expect(await fx.step(ids.t!)).toMatchObject({ state: 'cancelled' });
    expect(await fx.run(runId)).toMatchObject({ state: 'failed', open_steps: 0 });
    const events = await fx.events(runId);
    expect(events).toContainEqual([
      'step_cancelled_fail_fast',
      'waiting_signal',
      'cancelled',
      'fail_fast',
    ]);
    expect(events).toContainEqual([
      'step_cancelled_fail_fast',
      'waiting_timer',
      'cancelled',
      'fail_fast',
    ]);
    // A cancelled timer is never fired.
    expect(await fx.store.fireDueWaits()).toEqual({ fired: 0, lapsed: 0, childrenLapsed: 0 });
  });

  it('cancels waiting_signal and waiting_timer nodes by cancel_branch', async () => {
    // A wait downstream of a discard is waiting when its dependency was completed and is then
    // discarded again (a reopened node); the test puts the waits into that state by hand.
    const cb = { dependsOn: ['x'], onDepFailure: OnDepFailure.CancelBranch };
    const def = workflow('c-branch')
      .task('x', 'cb.x')
      .waitSignal('w', { signal: 's', ...cb })
      .waitTimer('t', { waitFor: '1h', ...cb })
      .build();
    const { runId, ids } = await start(def);
    await fx.query(
      `UPDATE cyclone_steps SET state = CASE WHEN node = 'w' THEN 'waiting_signal' ELSE 'waiting_timer' END,
       deps_remaining = 0 WHERE run_id = $1 AND node IN ('w', 't')`,
      [runId],
    );
    const x = await claimOne(fx, 'cb.x');
    await fx.store.fail({
      stepId: x.id,
      claimToken: x.claimToken,
      errorKind: 'permanent',
      error: 'no',
      panicStack: null,
      attempts: 0,
      maxAttempts: 1,
      retryDelayMs: 0,
    });
    expect(await fx.step(ids.w!)).toMatchObject({ state: 'cancelled' });
    expect(await fx.step(ids.t!)).toMatchObject({ state: 'cancelled' });
    expect(await fx.run(runId)).toMatchObject({ state: 'completed', open_steps: 0 });
    const events = await fx.events(runId);
    expect(events).toContainEqual([
      'step_cancelled_cancel_branch',
      'waiting_signal',
      'cancelled',
      'cancel_branch',
    ]);
    expect(events).toContainEqual([
      'step_cancelled_cancel_branch',
      'waiting_timer',
      'cancelled',
      'cancel_branch',
    ]);
  });
});

describe('a crash between a dependency’s completion and the wait’s promotion', () => {
  it('leaves the run in the outbox, and settlePending promotes the wait', async () => {
    const def = workflow('crash-wait')
      .task('a', 'cw.a')
      .waitSignal('w', { signal: 's', dependsOn: ['a'] })
      .build();
    const { runId, ids } = await start(def);
    await signal(runId, 's', 'early');
    const claimed = await claimOne(fx, 'cw.a');

    // Hold the buffered signal's row, so the settlement after the completion statement (which
    // never touches signals) waits on it once it has promoted the wait; then kill that backend.
    const blocker = new pg.Client({ connectionString: fx.db.url });
    blocker.on('error', () => undefined);
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM cyclone_signals WHERE run_id = $1 FOR UPDATE', [runId]);
    const blockerPid = (await blocker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))
      .rows[0]!.pid;
    const completing = fx.store.complete([
      { stepId: claimed.id, claimToken: claimed.claimToken, outputJson: '1' },
    ]);
    let killed = false;
    await until(async () => {
      const rows = await fx.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`,
        [blockerPid],
      );
      for (const { pid } of rows) {
        await fx.query('SELECT pg_terminate_backend($1)', [pid]);
        killed = true;
      }
      return killed;
    }, 'the settlement to wait for the run');
    expect([...(await completing)]).toEqual([claimed.id]);
    await blocker.query('ROLLBACK');
    await blocker.end();

    expect(await fx.step(ids.w!)).toMatchObject({ state: 'pending', deps_remaining: 0 });
    expect(
      await fx.query('SELECT 1 FROM cyclone_settlements WHERE run_id = $1', [runId]),
    ).toHaveLength(1);

    expect(await fx.store.settlePending()).toBe(1);
    expect(await fx.step(ids.w!)).toMatchObject({
      state: 'completed',
      output: { payload: 'early', timedOut: false },
    });
    expect(await fx.run(runId)).toMatchObject({ state: 'completed' });
    expect(await fx.query('SELECT 1 FROM cyclone_settlements WHERE run_id = $1', [runId])).toEqual(
      [],
    );
  });
});
