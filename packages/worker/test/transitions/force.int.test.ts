import { describe, expect, it } from 'vitest';
import {
  AlreadyTerminalError,
  NotFoundError,
  OnDepFailure,
  OutputBytes,
  ValidationError,
  workflow,
  type StepEvent,
} from '@cyclone/core';
import { eventually, gate } from '../engine.js';
import { runRow, stepReaches, stepRow, stepRows, useTransitionEngine } from './helpers.js';

const engine = useTransitionEngine();

const statesOf = async (runId: string) =>
  Object.fromEntries(Object.values(await stepRows(engine, runId)).map((s) => [s.node, s.state]));

/** Waits until the run is in `state`. */
async function runReaches(runId: string, state: string) {
  return eventually(async () => {
    const row = await runRow(engine, runId);
    return row.state === state ? row : undefined;
  }, `run ${runId} to be ${state}`);
}

/** The operator-move events of a node, as the client lists them. */
async function movesOf(runId: string, node: string): Promise<StepEvent[]> {
  return (await engine.client.events(runId)).filter(
    (e) => e.node === node && e.trigger === 'force',
  );
}

const eventCount = async () =>
  Number((await engine.query<{ n: string }>('SELECT count(*) AS n FROM cyclone_events'))[0]!.n);

/** An error a call rejects with. */
const refusal = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('client.forceStep through a real worker', () => {
  it('a forced completion of pending, available and waiting nodes promotes dependents, which read its output', async () => {
    let deps: unknown;
    await engine.startWorker({
      handlers: { 'fs.after': (ctx) => ((deps = ctx.deps), Promise.resolve('done')) },
    });
    const def = workflow('fs-complete')
      .task('idle', 'fs.nobody') // no worker handles it: it stays available
      .task('later', 'fs.nobody', { dependsOn: ['idle'] }) // pending
      .waitSignal('approval', { signal: 'approved' })
      .task('after', 'fs.after', { dependsOn: ['later', 'approval'] })
      .build();
    const { runId } = await engine.client.submit(def, null);
    expect(await statesOf(runId)).toMatchObject({
      idle: 'available',
      later: 'pending',
      approval: 'waiting_signal',
    });

    const pending = await engine.client.forceStep(runId, 'later', {
      to: 'completed',
      output: { later: 1 },
      reason: 'done by hand',
    });
    expect(pending).toMatchObject({ from: 'pending', to: 'completed', forced: true });
    await engine.client.forceStep(runId, 'approval', {
      to: 'completed',
      output: { payload: 'yes', timedOut: false },
      reason: 'approved on the phone',
    });
    // `idle` is still open: the run waits for it, and `after` ran with the forced outputs.
    await stepReaches(engine, runId, 'after', 'completed');
    expect(deps).toEqual({ later: { later: 1 }, approval: { payload: 'yes', timedOut: false } });
    expect((await runRow(engine, runId)).state).toBe('running');

    await engine.client.forceStep(runId, 'idle', { to: 'completed', reason: 'not needed' });
    const run = await runReaches(runId, 'completed');
    expect(run.open_steps).toBe(0);
    expect(await engine.client.output(runId, 'idle')).toBeNull();

    const [move] = await movesOf(runId, 'later');
    expect(move).toMatchObject({
      type: 'step_completed',
      from: 'pending',
      to: 'completed',
      forced: true,
      reason: 'done by hand',
      detail: { forced: true, reason: 'done by hand' },
    });
    expect((await movesOf(runId, 'approval'))[0]).toMatchObject({
      from: 'waiting_signal',
      forced: true,
      reason: 'approved on the phone',
    });
    // A forced output is never a handler's success: no attempt is counted.
    expect((await stepRow(engine, runId, 'later')).attempts).toBe(0);
  });

  it('a forced completion of a running step aborts its handler at once and fences out its late result', async () => {
    const aborted = gate<unknown>();
    const finish = gate();
    let deps: unknown;
    await engine.startWorker({
      handlers: {
        'fs.slow': async (ctx) => {
          ctx.signal.addEventListener('abort', () => aborted.open(ctx.signal.reason), {
            once: true,
          });
          await finish.promise;
          return 'late';
        },
        'fs.next': (ctx) => ((deps = ctx.deps), Promise.resolve('next')),
      },
      // A heartbeat this far away cannot be what aborts the handler within the test's bound.
      heartbeatInterval: '60s',
      leaseDuration: '5m',
    });
    const def = workflow('fs-running')
      .task('slow', 'fs.slow')
      .task('next', 'fs.next', { dependsOn: ['slow'] })
      .build();
    const { runId } = await engine.client.submit(def, null);
    await stepReaches(engine, runId, 'slow', 'running');
    await engine.client.forceStep(runId, 'slow', {
      to: 'completed',
      output: 'by hand',
      reason: 'the call went through',
    });
    const reason = await Promise.race([
      aborted.promise,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error('no abort within 10s')), 10_000),
      ),
    ]);
    expect(reason).toBeDefined();
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect(deps).toEqual({ slow: 'by hand' });
    finish.open();
    // The late return is refused by the claim: the output stays the operator's.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const slow = await stepRow(engine, runId, 'slow');
    expect(slow).toMatchObject({ state: 'completed', output: 'by hand', completed_event_id: null });
    const slowEvents = (await engine.client.events(runId)).filter((e) => e.node === 'slow');
    // The claim's event is stored when the move ends it (the row no longer tells it).
    expect(slowEvents.map((e) => `${e.type}:${e.from}->${e.to}:${e.trigger}`)).toEqual([
      'step_started:available->running:claim',
      'step_completed:running->completed:force',
    ]);
  });

  it('a forced discard fails the run by fail-fast, kind permanent, and is in the DLQ', async () => {
    const def = workflow('fs-discard')
      .task('charge', 'fs.nobody')
      .task('ship', 'fs.nobody', { dependsOn: ['charge'] })
      .waitSignal('other', { signal: 'other' })
      .build();
    const { runId } = await engine.client.submit(def, null);
    await engine.client.forceStep(runId, 'charge', { to: 'discarded', reason: 'card stolen' });
    const run = await engine.client.getRun(runId);
    expect(run).toMatchObject({ state: 'failed', errorKind: 'permanent' });
    expect(await statesOf(runId)).toEqual({
      charge: 'discarded',
      ship: 'cancelled',
      other: 'cancelled',
    });
    const charge = await stepRow(engine, runId, 'charge');
    expect(charge).toMatchObject({ error_kind: 'permanent' });
    expect(charge.error).toContain('card stolen');
    const [entry] = (await engine.client.listExhausted({ workflow: 'fs-discard' })).steps;
    expect(entry).toMatchObject({ runId, node: 'charge', reason: 'permanent' });
    const types = (await engine.client.events(runId)).map((e) => `${e.node}:${e.trigger}`);
    expect(types).toEqual(
      expect.arrayContaining(['charge:force', 'ship:fail_fast', 'other:fail_fast']),
    );
  });

  it('a forced discard under CancelBranch cancels the branch and the run completes', async () => {
    await engine.startWorker({ handlers: { 'fs.side': () => Promise.resolve('side') } });
    const def = workflow('fs-branch')
      .task('charge', 'fs.nobody')
      .task('ship', 'fs.nobody', {
        dependsOn: ['charge'],
        onDepFailure: OnDepFailure.CancelBranch,
      })
      .task('side', 'fs.side')
      .build();
    const { runId } = await engine.client.submit(def, null);
    await engine.client.forceStep(runId, 'charge', { to: 'discarded', reason: 'skip shipping' });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect(await statesOf(runId)).toEqual({
      charge: 'discarded',
      ship: 'cancelled',
      side: 'completed',
    });
    const ship = (await engine.client.events(runId)).find((e) => e.node === 'ship');
    expect(ship).toMatchObject({ type: 'step_cancelled_cancel_branch', trigger: 'cancel_branch' });
  });

  it('a forced cancel is a branch cancellation of its dependents; the rest of the run completes', async () => {
    await engine.startWorker({ handlers: { 'fs.side': () => Promise.resolve('side') } });
    const def = workflow('fs-cancel')
      .task('a', 'fs.nobody')
      .task('b', 'fs.nobody', { dependsOn: ['a'] })
      .task('c', 'fs.nobody', { dependsOn: ['b'] })
      .task('side', 'fs.side')
      .build();
    const { runId } = await engine.client.submit(def, null);
    await engine.client.forceStep(runId, 'a', { to: 'cancelled', reason: 'not this time' });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect(await statesOf(runId)).toEqual({
      a: 'cancelled',
      b: 'cancelled',
      c: 'cancelled',
      side: 'completed',
    });
    const events = await engine.client.events(runId);
    expect(events.find((e) => e.node === 'a' && e.to === 'cancelled')).toMatchObject({
      type: 'step_cancelled_force',
      forced: true,
      reason: 'not this time',
    });
    expect(events.filter((e) => e.trigger === 'cancel_branch').map((e) => e.node)).toEqual([
      'b',
      'c',
    ]);
  });

  it('a terminal run refuses with AlreadyTerminalError; a terminal node with TRANSITION_REFUSED terminal', async () => {
    await engine.startWorker({ handlers: { 'fs.quick': () => Promise.resolve(1) } });
    const def = workflow('fs-terminal').task('one', 'fs.quick').task('two', 'fs.nobody').build();
    const { runId } = await engine.client.submit(def, null);
    await stepReaches(engine, runId, 'one', 'completed');
    const node = await refusal(
      engine.client.forceStep(runId, 'one', { to: 'cancelled', reason: 'too late' }),
    );
    expect(node).toMatchObject({ code: 'TRANSITION_REFUSED', reason: 'terminal' });
    await engine.client.forceStep(runId, 'two', { to: 'completed', reason: 'finish it' });
    await runReaches(runId, 'completed');
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past the duplicate window
    const before = await eventCount();
    const error = await refusal(
      engine.client.forceStep(runId, 'two', { to: 'cancelled', reason: 'again' }),
    );
    expect(error).toBeInstanceOf(AlreadyTerminalError);
    expect(error).toMatchObject({ code: 'ALREADY_TERMINAL', reason: 'terminal' });
    expect(await eventCount()).toBe(before);
  });

  it('without force, only a move the table makes by itself is applied, recorded forced: false', async () => {
    const def = workflow('fs-unforced')
      .task('a', 'fs.nobody')
      .task('b', 'fs.nobody', { dependsOn: ['a'] })
      .waitSignal('w', { signal: 'w' })
      .build();
    const { runId } = await engine.client.submit(def, null);
    const before = await eventCount();
    const refused = await refusal(
      engine.client.forceStep(runId, 'b', { to: 'completed', reason: 'skip', force: false }),
    );
    expect(refused).toMatchObject({ code: 'TRANSITION_REFUSED', reason: 'invalid-entry' });
    expect(await eventCount()).toBe(before);
    const moved = await engine.client.forceStep(runId, 'w', {
      to: 'completed',
      output: { payload: null, timedOut: false },
      reason: 'answered elsewhere',
      force: false,
    });
    expect(moved.forced).toBe(false);
    expect((await movesOf(runId, 'w'))[0]).toMatchObject({ forced: false });
    await engine.client.cancel(runId);
  });

  it('the same move twice within one second is refused as duplicate and acts once', async () => {
    const def = workflow('fs-duplicate')
      .waitSignal('w', { signal: 'w' })
      .task('x', 'fs.nobody')
      .build();
    const { runId } = await engine.client.submit(def, null);
    const move = { to: 'cancelled' as const, reason: 'double click' };
    const results = await Promise.allSettled([
      engine.client.forceStep(runId, 'w', move),
      engine.client.forceStep(runId, 'w', move),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const [rejected] = results.filter((r) => r.status === 'rejected');
    expect(rejected?.reason).toMatchObject({ code: 'TRANSITION_REFUSED', reason: 'duplicate' });
    expect(await movesOf(runId, 'w')).toHaveLength(1);
    await engine.client.cancel(runId);
  });

  it('bad input is a ValidationError or NotFoundError naming the field, and writes nothing', async () => {
    const def = workflow('fs-bad').task('a', 'fs.nobody').build();
    const { runId } = await engine.client.submit(def, null);
    const before = await eventCount();
    const cases: [Promise<unknown>, string][] = [
      [engine.client.forceStep(runId, 'a', { to: 'running' as never, reason: 'r' }), 'to'],
      [engine.client.forceStep(runId, 'a', { to: 'completed', reason: '' }), 'reason'],
      [engine.client.forceStep(runId, 'a', { to: 'completed', output: 1n, reason: 'r' }), 'output'],
      [
        engine.client.forceStep(runId, 'a', {
          to: 'completed',
          output: 'x'.repeat(OutputBytes),
          reason: 'r',
        }),
        'output',
      ],
    ];
    for (const [call, path] of cases) {
      const error = await refusal(call);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues.map((i) => i.path)).toContain(path);
    }
    const node = await refusal(
      engine.client.forceStep(runId, 'nope', { to: 'cancelled', reason: 'r' }),
    );
    expect(node).toBeInstanceOf(NotFoundError);
    expect(node).toMatchObject({ entity: 'node', id: 'nope' });
    const run = await refusal(
      engine.client.forceStep('00000000-0000-7000-8000-000000000000', 'a', {
        to: 'cancelled',
        reason: 'r',
      }),
    );
    expect(run).toMatchObject({ code: 'NOT_FOUND', entity: 'run' });
    expect(await eventCount()).toBe(before);
    expect((await stepRow(engine, runId, 'a')).state).toBe('available');
    await engine.client.cancel(runId);
  });

  it('in a paused run a forced completion promotes nothing until resume; the run stays paused', async () => {
    let deps: unknown;
    await engine.startWorker({
      handlers: { 'fs.after': (ctx) => ((deps = ctx.deps), Promise.resolve('after')) },
    });
    const def = workflow('fs-paused')
      .task('a', 'fs.nobody')
      .task('after', 'fs.after', { dependsOn: ['a'] })
      .build();
    const { runId } = await engine.client.submit(def, null);
    await engine.client.run(runId).pause();
    expect((await stepRow(engine, runId, 'a')).state).toBe('paused');
    await engine.client.forceStep(runId, 'a', { to: 'completed', output: 7, reason: 'paused fix' });
    expect(await statesOf(runId)).toEqual({ a: 'completed', after: 'pending' });
    expect((await runRow(engine, runId)).state).toBe('paused');
    await engine.client.run(runId).resume();
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect(deps).toEqual({ a: 7 });
  });

  it('a forced fan-out node cancels its open item tasks (aborting running ones) and completes with the output', async () => {
    const started = gate();
    const aborted = gate();
    let deps: unknown;
    await engine.startWorker({
      handlers: {
        'fs.list': () => Promise.resolve([1, 2, 3]),
        'fs.item': (ctx) =>
          new Promise((_, reject) => {
            started.open();
            ctx.signal.addEventListener('abort', () => (aborted.open(), reject(new Error('x'))), {
              once: true,
            });
          }),
        'fs.sum': (ctx) => ((deps = ctx.deps), Promise.resolve('sum')),
      },
      heartbeatInterval: '60s',
      leaseDuration: '5m',
    });
    const def = workflow('fs-fan-out')
      .task('list', 'fs.list')
      .fanOut('items', 'fs.item', { from: 'list', maxParallel: 1 })
      .task('sum', 'fs.sum', { dependsOn: ['items'] })
      .build();
    const { runId } = await engine.client.submit(def, null);
    await started.promise;
    await engine.client.forceStep(runId, 'items', {
      to: 'completed',
      output: ['a', 'b', 'c'],
      reason: 'items done elsewhere',
    });
    await aborted.promise;
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect(deps).toEqual({ items: ['a', 'b', 'c'] });
    const items = await engine.query<{ state: string }>(
      'SELECT state FROM cyclone_steps WHERE run_id = $1 AND item_index IS NOT NULL',
      [runId],
    );
    expect(items.map((i) => i.state)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  });

  it('a forced child node cancels its child run; dependents read the given output', async () => {
    const child = workflow('fs-child').waitSignal('go', { signal: 'go' }).build();
    const parent = workflow('fs-parent')
      .child('kid', { workflow: 'fs-child' })
      .task('after', 'fs.after', { dependsOn: ['kid'] })
      .build();
    let deps: unknown;
    await engine.startWorker({
      workflows: [parent, child],
      handlers: { 'fs.after': (ctx) => ((deps = ctx.deps), Promise.resolve('after')) },
    });
    const { runId } = await engine.client.submit(parent, null);
    const kid = await stepReaches(engine, runId, 'kid', 'waiting_child');
    const childRunId = await eventually(
      async () => (await stepRow(engine, runId, 'kid')).child_run_id ?? undefined,
      'the child run',
    );
    expect(kid.state).toBe('waiting_child');
    await engine.client.forceStep(runId, 'kid', {
      to: 'completed',
      output: { pdf: 'by hand' },
      reason: 'invoice sent manually',
    });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect(deps).toEqual({ kid: { pdf: 'by hand' } });
    expect((await runRow(engine, childRunId)).state).toBe('cancelled');
  });
});
