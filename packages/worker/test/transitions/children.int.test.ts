import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ChildNotRetryableError, OnDepFailure, permanent, workflow } from '@cyclone/core';
import { eventually } from '../engine.js';
import {
  eventRows,
  runRow,
  stepReaches,
  stepRow,
  useTransitionEngine,
  type Engine,
} from './helpers.js';

const engine = useTransitionEngine();

/** Waits until the child node of `node` has started its child run; returns the child run's id. */
async function childRunOf(e: Engine, runId: string, node: string): Promise<string> {
  return eventually(
    async () => (await stepRow(e, runId, node)).child_run_id ?? undefined,
    `node ${node} of run ${runId} to start its child run`,
  );
}

/** Waits until a run is in `state`. */
async function runReaches(e: Engine, runId: string, state: string) {
  return eventually(async () => {
    const row = await runRow(e, runId);
    return row.state === state ? row : undefined;
  }, `run ${runId} to be ${state}`);
}

/** `type:from->to:trigger` of a node's events. */
async function nodeEvents(e: Engine, runId: string, node: string): Promise<string[]> {
  return (await eventRows(e, runId))
    .filter((ev) => ev.node === node)
    .map((ev) => `${ev.type}:${ev.from_state}->${ev.to_state}:${ev.trigger}`);
}

/** A child workflow that waits for the signal `go`, then renders `pdf`. */
function waitingInvoice(name: string) {
  return workflow(name)
    .waitSignal('go', { signal: 'go' })
    .task('pdf', `${name}.pdf`, { dependsOn: ['go'] })
    .build();
}

describe('child nodes through a real worker', () => {
  it('waits for its child run and completes with the output of its result node', async () => {
    const invoice = workflow('ch-invoice')
      .task('render', 'ch-invoice.render')
      .task('pdf', 'ch-invoice.pdf', { dependsOn: ['render'] })
      .task('mail', 'ch-invoice.mail', { dependsOn: ['render'] })
      .build();
    const order = workflow('ch-order')
      .task('charge', 'ch-order.charge')
      .child('invoice', { workflow: 'ch-invoice', result: 'pdf', dependsOn: ['charge'] })
      .task('ship', 'ch-order.ship', { dependsOn: ['invoice'] })
      .build();
    let seen: unknown;
    let childInput: unknown;
    await engine.startWorker({
      workflows: [order, invoice],
      handlers: {
        'ch-order.charge': () => Promise.resolve({ charged: true }),
        'ch-invoice.render': (ctx) => {
          childInput = ctx.input;
          return Promise.resolve('rendered');
        },
        'ch-invoice.pdf': () => Promise.resolve({ url: 'pdf://1' }),
        'ch-invoice.mail': () => Promise.resolve('mailed'),
        'ch-order.ship': (ctx) => {
          seen = ctx.deps.invoice;
          return Promise.resolve('shipped');
        },
      },
    });
    const { runId } = await engine.client.submit(order, { orderId: 7 });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');

    const node = await stepRow(engine, runId, 'invoice');
    expect(node).toMatchObject({
      state: 'completed',
      output: { url: 'pdf://1' },
      attempts: 0,
      claim_token: null,
      error_kind: null,
    });
    expect(seen).toEqual({ url: 'pdf://1' });
    const child = await runRow(engine, node.child_run_id!);
    expect(child).toMatchObject({
      workflow: 'ch-invoice',
      state: 'completed',
      parent_run_id: runId,
      parent_step_id: node.id,
    });
    // The child run gets the parent's run input (decision 80).
    expect(childInput).toEqual({ orderId: 7 });
    expect(await nodeEvents(engine, runId, 'invoice')).toEqual([
      'step_waiting:pending->waiting_child:promote',
      'child_completed:waiting_child->completed:child_completed',
    ]);
    expect((await eventRows(engine, child.id))[0]).toMatchObject({
      type: 'run_submitted',
      to_state: 'running',
    });
  });

  it('without a result node, completes with the child result as client.result returns it', async () => {
    const child = workflow('ch-leaves').task('a', 'ch-leaves.a').task('b', 'ch-leaves.b').build();
    const parent = workflow('ch-leaves-parent').child('kid', { workflow: 'ch-leaves' }).build();
    await engine.startWorker({
      workflows: [child],
      handlers: {
        'ch-leaves.a': () => Promise.resolve(1),
        'ch-leaves.b': () => Promise.resolve(2),
      },
    });
    const { runId } = await engine.client.submit(parent, null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    const node = await stepRow(engine, runId, 'kid');
    expect(node.output).toEqual(await engine.client.result(node.child_run_id!));
    expect(node.output).toEqual({ a: 1, b: 2 });
    // A child node with no dependencies is inserted waiting.
    expect(await nodeEvents(engine, runId, 'kid')).toEqual([
      'child_completed:waiting_child->completed:child_completed',
    ]);
  });

  it('is discarded as permanent when its child run fails, and the parent run fails', async () => {
    const child = workflow('ch-fails').task('boom', 'ch-fails.boom').build();
    const parent = workflow('ch-fails-parent').child('kid', { workflow: 'ch-fails' }).build();
    await engine.startWorker({
      workflows: [child],
      handlers: { 'ch-fails.boom': () => Promise.reject(permanent(new Error('no paper'))) },
    });
    const { runId } = await engine.client.submit(parent, null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const node = await stepRow(engine, runId, 'kid');
    expect(node).toMatchObject({ state: 'discarded', error_kind: 'permanent' });
    expect(node.error).toContain(`child run ${node.child_run_id} failed`);
    expect((await runRow(engine, node.child_run_id!)).state).toBe('failed');
    expect(await runRow(engine, runId)).toMatchObject({
      state: 'failed',
      failed_node: 'kid',
      error_kind: 'permanent',
    });
    expect(await nodeEvents(engine, runId, 'kid')).toContain(
      'step_discarded:waiting_child->discarded:child_failed',
    );
  });

  it('is discarded as permanent when its child run is cancelled', async () => {
    const child = waitingInvoice('ch-cancelled');
    const parent = workflow('ch-cancelled-parent')
      .child('kid', { workflow: 'ch-cancelled' })
      .build();
    await engine.store.registerWorkflows([child]);
    const { runId } = await engine.client.submit(parent, null);
    const childRunId = await childRunOf(engine, runId, 'kid');
    await engine.client.cancel(childRunId);
    const node = await stepReaches(engine, runId, 'kid', 'discarded');
    expect(node).toMatchObject({ error_kind: 'permanent' });
    expect(node.error).toBe(`child run ${childRunId} was cancelled`);
    expect((await runRow(engine, runId)).state).toBe('failed');
  });

  it('is discarded as permanent when the child completed while its result node did not', async () => {
    const child = workflow('ch-noresult')
      .task('a', 'ch-noresult.a')
      .task('pdf', 'ch-noresult.pdf', {
        dependsOn: ['a'],
        onDepFailure: OnDepFailure.CancelBranch,
      })
      .task('b', 'ch-noresult.b')
      .build();
    const parent = workflow('ch-noresult-parent')
      .child('kid', { workflow: 'ch-noresult', result: 'pdf' })
      .build();
    await engine.startWorker({
      workflows: [child],
      handlers: {
        'ch-noresult.a': () => Promise.reject(permanent(new Error('nope'))),
        'ch-noresult.pdf': () => Promise.resolve('never'),
        'ch-noresult.b': () => Promise.resolve('b'),
      },
    });
    const { runId } = await engine.client.submit(parent, null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const node = await stepRow(engine, runId, 'kid');
    // The child contained its discard and completed, but gave no result for the node.
    expect((await runRow(engine, node.child_run_id!)).state).toBe('completed');
    expect(node).toMatchObject({ state: 'discarded', error_kind: 'permanent' });
    expect(node.error).toContain('its result node pdf did not complete (cancelled)');

    // A retry would reuse that child run, which has no result to give: refused, nothing changes.
    const error = await engine.client.retry(runId, 'kid').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChildNotRetryableError);
    expect(error).toMatchObject({ code: 'CHILD_NOT_RETRYABLE', childRunId: node.child_run_id });
    expect(await stepRow(engine, runId, 'kid')).toMatchObject({ state: 'discarded' });
    expect((await runRow(engine, runId)).state).toBe('failed');
  });

  it('is discarded as permanent when its child workflow is not registered', async () => {
    const parent = workflow('ch-ghost-parent')
      .task('first', 'ch-ghost.first')
      .child('kid', { workflow: 'ch-ghost', dependsOn: ['first'] })
      .build();
    await engine.startWorker({ handlers: { 'ch-ghost.first': () => Promise.resolve(1) } });
    const { runId } = await engine.client.submit(parent, null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const node = await stepRow(engine, runId, 'kid');
    expect(node).toMatchObject({ state: 'discarded', error_kind: 'permanent', child_run_id: null });
    expect(node.error).toContain('child workflow ch-ghost is not registered');
    expect(await nodeEvents(engine, runId, 'kid')).toEqual([
      'step_waiting:pending->waiting_child:promote',
      'step_discarded:waiting_child->discarded:child_failed',
    ]);
  });

  it('is discarded as permanent when its maxWait lapses, and its child run is cancelled', async () => {
    const child = waitingInvoice('ch-lapse');
    const parent = workflow('ch-lapse-parent')
      .child('kid', { workflow: 'ch-lapse', maxWait: '50ms' })
      .build();
    await engine.store.registerWorkflows([child]);
    const { runId } = await engine.client.submit(parent, null);
    const childRunId = await childRunOf(engine, runId, 'kid');
    await eventually(
      async () => (await engine.store.fireDueWaits()).childrenLapsed > 0,
      'the max wait of the child node to lapse',
    );
    const node = await stepRow(engine, runId, 'kid');
    expect(node).toMatchObject({ state: 'discarded', error_kind: 'permanent' });
    expect(node.error).toContain('maxWait');
    expect((await runRow(engine, childRunId)).state).toBe('cancelled');
    expect((await runRow(engine, runId)).state).toBe('failed');
    expect(await nodeEvents(engine, runId, 'kid')).toContain(
      'step_discarded:waiting_child->discarded:wait_lapsed',
    );
  });

  it("is discarded with kind deadline when the parent's run deadline elapses", async () => {
    const child = waitingInvoice('ch-deadline');
    const parent = workflow('ch-deadline-parent').child('kid', { workflow: 'ch-deadline' }).build();
    await engine.store.registerWorkflows([child]);
    const { runId } = await engine.client.submit(parent, null, { runDeadline: '50ms' });
    const childRunId = await childRunOf(engine, runId, 'kid');
    await eventually(
      async () => (await engine.store.expireRunDeadlines()) > 0,
      'the run deadline to expire',
    );
    expect(await stepRow(engine, runId, 'kid')).toMatchObject({
      state: 'discarded',
      error_kind: 'deadline',
      error: 'run deadline exceeded',
    });
    expect((await runRow(engine, runId)).state).toBe('failed');
    expect((await runRow(engine, childRunId)).state).toBe('cancelled');
    expect(await nodeEvents(engine, runId, 'kid')).toContain(
      'step_discarded:waiting_child->discarded:run_deadline',
    );
  });

  it('is cancelled with its parent run, and its child run in the same transaction', async () => {
    const grandchild = waitingInvoice('ch-cancel-grand');
    const child = workflow('ch-cancel-child')
      .child('inner', { workflow: 'ch-cancel-grand' })
      .build();
    const parent = workflow('ch-cancel-parent')
      .child('kid', { workflow: 'ch-cancel-child' })
      .build();
    await engine.store.registerWorkflows([child, grandchild]);
    const { runId } = await engine.client.submit(parent, null);
    const childRunId = await childRunOf(engine, runId, 'kid');
    const grandRunId = await childRunOf(engine, childRunId, 'inner');
    await engine.client.cancel(runId);

    expect(await stepRow(engine, runId, 'kid')).toMatchObject({ state: 'cancelled' });
    expect(await stepRow(engine, childRunId, 'inner')).toMatchObject({ state: 'cancelled' });
    const rows = await engine.query<{ id: string; state: string; xid: string }>(
      'SELECT id, state, xmin::text AS xid FROM cyclone_runs WHERE id = ANY($1::uuid[])',
      [[runId, childRunId, grandRunId]],
    );
    expect(rows.map((r) => r.state)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    // One transaction wrote all three runs.
    expect(new Set(rows.map((r) => r.xid)).size).toBe(1);
    expect(await nodeEvents(engine, runId, 'kid')).toContain(
      'step_cancelled_cancel:waiting_child->cancelled:cancel',
    );
  });

  it('pauses with its run while the child run goes on; resume applies the child’s end and keeps the max wait', async () => {
    const child = waitingInvoice('ch-pause');
    const parent = workflow('ch-pause-parent')
      .child('kid', { workflow: 'ch-pause', result: 'pdf', maxWait: '1h' })
      .task('after', 'ch-pause.after', { dependsOn: ['kid'] })
      .build();
    await engine.startWorker({
      workflows: [parent, child],
      handlers: {
        'ch-pause.pdf': () => Promise.resolve('the pdf'),
        'ch-pause.after': (ctx) => Promise.resolve(ctx.deps.kid),
      },
    });
    const { runId } = await engine.client.submit(parent, null);
    const childRunId = await childRunOf(engine, runId, 'kid');
    const before = await stepRow(engine, runId, 'kid');

    await engine.client.run(runId).pause();
    expect(await stepRow(engine, runId, 'kid')).toMatchObject({ state: 'paused' });
    // The child run is not paused: it receives its signal and completes meanwhile.
    expect((await runRow(engine, childRunId)).state).toBe('running');
    await engine.client.signal(childRunId, 'go', null);
    await runReaches(engine, childRunId, 'completed');
    expect(await stepRow(engine, runId, 'kid')).toMatchObject({ state: 'paused' });

    await engine.client.run(runId).resume();
    const resumed = await stepRow(engine, runId, 'kid');
    expect(resumed).toMatchObject({ state: 'completed', output: 'the pdf' });
    // The max wait moved forward by the pause: it kept the time it had left.
    expect(resumed.wait_deadline_at!.getTime()).toBeGreaterThanOrEqual(
      before.wait_deadline_at!.getTime(),
    );
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect(await nodeEvents(engine, runId, 'kid')).toEqual([
      'step_paused:waiting_child->paused:pause',
      'step_resumed:paused->waiting_child:resume',
      'child_completed:waiting_child->completed:child_completed',
    ]);
  });

  it('resumes into waiting_child with the wait deadline moved by the pause', async () => {
    const child = waitingInvoice('ch-pause-time');
    const parent = workflow('ch-pause-time-parent')
      .child('kid', { workflow: 'ch-pause-time', maxWait: '1h' })
      .build();
    await engine.store.registerWorkflows([child]);
    const { runId } = await engine.client.submit(parent, null);
    await childRunOf(engine, runId, 'kid');
    const before = await stepRow(engine, runId, 'kid');
    await engine.client.run(runId).pause();
    await engine.client.run(runId).resume();
    const after = await stepRow(engine, runId, 'kid');
    expect(after.state).toBe('waiting_child');
    // Resume moved the deadline forward by the pause's length (now() at resume minus paused_at),
    // so the node has exactly the time left that it had at the pause.
    const shift = after.wait_deadline_at!.getTime() - before.wait_deadline_at!.getTime();
    expect(shift).toBeGreaterThanOrEqual(0);
    expect(after.wait_deadline_at!.getTime()).toBeGreaterThan(Date.now());
  });

  it('is retried with its child run reused: the failed child run starts again and completes', async () => {
    const child = workflow('ch-retry').task('flaky', 'ch-retry.flaky').build();
    const parent = workflow('ch-retry-parent')
      .child('kid', { workflow: 'ch-retry' })
      .task('after', 'ch-retry.after', { dependsOn: ['kid'] })
      .build();
    let calls = 0;
    await engine.startWorker({
      workflows: [parent, child],
      handlers: {
        'ch-retry.flaky': () => {
          calls += 1;
          return calls === 1
            ? Promise.reject(permanent(new Error('first')))
            : Promise.resolve('ok');
        },
        'ch-retry.after': () => Promise.resolve('after'),
      },
    });
    const { runId } = await engine.client.submit(parent, null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const failed = await stepRow(engine, runId, 'kid');
    const childRunId = failed.child_run_id!;
    expect((await runRow(engine, childRunId)).state).toBe('failed');
    expect(await stepRow(engine, runId, 'after')).toMatchObject({ state: 'cancelled' });

    await engine.client.retry(runId, 'kid');
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    const node = await stepRow(engine, runId, 'kid');
    expect(node).toMatchObject({
      state: 'completed',
      child_run_id: childRunId,
      output: { flaky: 'ok' },
      error: null,
      error_kind: null,
    });
    expect((await runRow(engine, childRunId)).state).toBe('completed');
    expect(calls).toBe(2);
    // Still one child run: the node reused it.
    expect((await engine.client.listRuns({ parentRunId: runId })).runs).toHaveLength(1);
    expect(await nodeEvents(engine, runId, 'kid')).toEqual([
      'step_discarded:waiting_child->discarded:child_failed',
      'step_retried:discarded->pending:operator_retry',
      'step_waiting:pending->waiting_child:promote',
      'child_completed:waiting_child->completed:child_completed',
    ]);
    const childRunEvents = (await eventRows(engine, childRunId)).filter((e) => e.step_id === null);
    expect(childRunEvents.map((e) => `${e.type}:${e.from_state}->${e.to_state}`)).toEqual([
      'run_submitted:null->running',
      'run_failed:running->failed',
      'run_retried:failed->running',
      'run_completed:running->completed',
    ]);
  });

  it('restarts a cancelled child run when retryAll reopens the node after a fail-fast', async () => {
    const child = waitingInvoice('ch-reopen');
    const parent = workflow('ch-reopen-parent')
      .child('kid', { workflow: 'ch-reopen', result: 'pdf' })
      .task('boom', 'ch-reopen.boom')
      .build();
    let booms = 0;
    await engine.startWorker({
      workflows: [parent, child],
      handlers: {
        'ch-reopen.boom': () => {
          booms += 1;
          return booms === 1 ? Promise.reject(permanent(new Error('boom'))) : Promise.resolve(1);
        },
        'ch-reopen.pdf': () => Promise.resolve('pdf'),
      },
    });
    const { runId } = await engine.client.submit(parent, null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const childRunId = (await stepRow(engine, runId, 'kid')).child_run_id!;
    // Fail-fast cancelled the child node and its child run.
    expect(await stepRow(engine, runId, 'kid')).toMatchObject({ state: 'cancelled' });
    expect((await runRow(engine, childRunId)).state).toBe('cancelled');

    await engine.client.retryAll(runId);
    expect(await stepRow(engine, runId, 'kid')).toMatchObject({
      state: 'waiting_child',
      child_run_id: childRunId,
    });
    expect((await runRow(engine, childRunId)).state).toBe('running');
    await engine.client.signal(childRunId, 'go', null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect(await stepRow(engine, runId, 'kid')).toMatchObject({ output: 'pdf' });
    expect(await nodeEvents(engine, runId, 'kid')).toContain(
      'step_reopened:cancelled->pending:operator_retry_reopen',
    );
  });

  it('completes at once when a signal ends its child run, with no scanner involved', async () => {
    const child = workflow('ch-signal-end').waitSignal('go', { signal: 'go' }).build();
    const parent = workflow('ch-signal-end-parent')
      .child('kid', { workflow: 'ch-signal-end', result: 'go' })
      .build();
    await engine.store.registerWorkflows([child]);
    const { runId } = await engine.client.submit(parent, null);
    const childRunId = await childRunOf(engine, runId, 'kid');
    await engine.client.signal(childRunId, 'go', { ok: true });
    // The signal's own call settled the parent: no settle-pending pass ran.
    expect(await stepRow(engine, runId, 'kid')).toMatchObject({
      state: 'completed',
      output: { payload: { ok: true }, timedOut: false },
    });
    expect((await runRow(engine, runId)).state).toBe('completed');
  });

  it('shows parent and children in getRun, and listRuns filters by parent', async () => {
    const child = waitingInvoice('ch-reads');
    const parent = workflow('ch-reads-parent')
      .child('one', { workflow: 'ch-reads' })
      .child('two', { workflow: 'ch-reads' })
      .build();
    await engine.store.registerWorkflows([child]);
    const { runId } = await engine.client.submit(parent, null);
    const one = await childRunOf(engine, runId, 'one');
    const two = await childRunOf(engine, runId, 'two');
    const status = await engine.client.getRun(runId);
    expect(status).toMatchObject({ parentRunId: null, parentStepId: null });
    expect(status.children).toEqual([
      {
        runId: one,
        node: 'one',
        stepId: (await stepRow(engine, runId, 'one')).id,
        state: 'running',
      },
      {
        runId: two,
        node: 'two',
        stepId: (await stepRow(engine, runId, 'two')).id,
        state: 'running',
      },
    ]);
    expect(await engine.client.getRun(one)).toMatchObject({
      parentRunId: runId,
      parentStepId: (await stepRow(engine, runId, 'one')).id,
      children: [],
    });
    const listed = await engine.client.listRuns({ parentRunId: runId });
    expect(listed.runs.map((r) => r.id).sort()).toEqual([one, two].sort());
    expect((await engine.client.listRuns({ parentRunId: one })).runs).toEqual([]);
    const steps = await engine.client.listSteps(runId);
    expect(steps.map((s) => [s.node, s.state, s.childRunId])).toEqual([
      ['one', 'waiting_child', one],
      ['two', 'waiting_child', two],
    ]);
    await engine.client.cancel(runId);
  });

  it('survives a connection killed mid-settlement: the outbox marker stays and settle-pending finishes the parent', async () => {
    const child = workflow('ch-crash').task('only', 'ch-crash.only').build();
    const parent = workflow('ch-crash-parent').child('kid', { workflow: 'ch-crash' }).build();
    await engine.store.registerWorkflows([child]);
    const { runId } = await engine.client.submit(parent, null);
    const childRunId = await childRunOf(engine, runId, 'kid');
    const [claimed] = await engine.store.claim({
      kinds: ['ch-crash.only'],
      limit: 1,
      workerId: 'test',
      leaseMs: 60_000,
    });

    // Hold the parent's lock, so the settlement that follows the child's completion waits on it.
    const blocker = new pg.Client({ connectionString: engine.url });
    blocker.on('error', () => undefined);
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM cyclone_runs WHERE id = $1 FOR UPDATE', [runId]);
    const blockerPid = (await blocker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))
      .rows[0]!.pid;
    const completing = engine.store.complete([
      { stepId: claimed!.id, claimToken: claimed!.claimToken, outputJson: '"done"' },
    ]);
    let killed = false;
    await eventually(async () => {
      const rows = await engine.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`,
        [blockerPid],
      );
      for (const { pid } of rows) {
        await engine.query('SELECT pg_terminate_backend($1)', [pid]);
        killed = true;
      }
      return killed;
    }, "the parent's settlement to wait for its lock");
    await completing;
    await blocker.query('ROLLBACK');
    await blocker.end();

    // The child run completed; its parent's node still waits, and the outbox holds the parent.
    expect((await runRow(engine, childRunId)).state).toBe('completed');
    expect(await stepRow(engine, runId, 'kid')).toMatchObject({ state: 'waiting_child' });
    expect(
      await engine.query('SELECT run_id FROM cyclone_settlements WHERE run_id = $1', [runId]),
    ).toHaveLength(1);

    expect(await engine.store.settlePending()).toBeGreaterThanOrEqual(1);
    expect(await stepRow(engine, runId, 'kid')).toMatchObject({
      state: 'completed',
      output: { only: 'done' },
    });
    expect((await runRow(engine, runId)).state).toBe('completed');
    expect(
      await engine.query('SELECT run_id FROM cyclone_settlements WHERE run_id = $1', [runId]),
    ).toHaveLength(0);
  });
});
