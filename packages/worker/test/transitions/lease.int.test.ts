import { beforeEach, describe, expect, it } from 'vitest';
import { DefaultMaxReclaims, ErrorKind } from '@cyclone/core';
import type { ClaimedStep } from '@cyclone/store-postgres';
import { eventually, gate } from '../engine.js';
import {
  eventRows,
  leaseExpires,
  runRow,
  secondsFromNow,
  stepReaches,
  stepRow,
  truncateRuns,
  untilAborted,
  useTransitionEngine,
} from './helpers.js';

const engine = useTransitionEngine();

// The recovery sweep reads the whole database: each test starts from empty tables.
beforeEach(() => truncateRuns(engine));

/** Claims the one available step of `kind` directly through the store, as a worker would. */
async function claimOne(kind: string, workerId: string, leaseMs: number): Promise<ClaimedStep> {
  const claimed = await engine.store.claim({ kinds: [kind], limit: 10, workerId, leaseMs });
  expect(claimed).toHaveLength(1);
  return claimed[0]!;
}

describe('running -> available by lease reclaim', () => {
  it('reclaims a step whose lease expired: available again, reclaims + 1, no attempt charged, no backoff, a step_reclaimed event', async () => {
    const { runId } = await engine.client.enqueue('lease.job', { n: 1 }, { maxAttempts: 2 });
    const claim = await claimOne('lease.job', 'crashed-worker', 50);
    const running = await stepRow(engine, runId, 'lease.job');
    expect(running).toMatchObject({
      state: 'running',
      claim_token: claim.claimToken,
      claimed_by: 'crashed-worker',
    });

    // Nothing to reclaim before the lease has expired.
    await leaseExpires(engine, claim.id);
    expect(await engine.store.reclaimExpired()).toBe(1);

    const step = await stepRow(engine, runId, 'lease.job');
    expect(step).toMatchObject({
      state: 'available',
      attempts: 0,
      reclaims: 1,
      lease_expires_at: null,
      error_kind: null,
      error: null,
      ended_at: null,
    });
    expect(await secondsFromNow(engine, step.id, 'scheduled_at')).toBeLessThanOrEqual(0);
    expect(await runRow(engine, runId)).toMatchObject({
      state: 'running',
      reclaim_count: 1,
      failure_count: 0,
      open_steps: 1,
    });
    const reclaimed = (await eventRows(engine, runId)).filter((e) => e.type === 'step_reclaimed');
    expect(reclaimed).toHaveLength(1);
    expect(reclaimed[0]).toMatchObject({
      step_id: step.id,
      from_state: 'running',
      to_state: 'available',
      detail: { reclaims: 1, worker: 'crashed-worker' },
    });

    // A second sweep finds nothing, and the step runs to completion on a live worker with attempt 1.
    expect(await engine.store.reclaimExpired()).toBe(0);
    const attempts: number[] = [];
    await engine.startWorker({
      handlers: { 'lease.job': (ctx) => void attempts.push(ctx.attempt) },
    });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect(attempts).toEqual([1]);
    expect(await stepRow(engine, runId, 'lease.job')).toMatchObject({ attempts: 1, reclaims: 1 });
  });

  it('does not reclaim a step whose lease is still held', async () => {
    const { runId } = await engine.client.enqueue('lease.live', null);
    await claimOne('lease.live', 'live-worker', 60_000);
    expect(await engine.store.reclaimExpired()).toBe(0);
    expect((await stepRow(engine, runId, 'lease.live')).state).toBe('running');
  });

  it('reclaims the step of a worker that stopped heartbeating, and another worker finishes it', async () => {
    const stuck = gate();
    const stale = await engine.startWorker({
      handlers: { 'lease.stuck': () => stuck.promise.then(() => 'from the stale worker') },
      leaseDuration: '200ms',
      heartbeatInterval: '1h',
      concurrency: 1,
    });
    const { runId } = await engine.client.enqueue('lease.stuck', null);
    const held = await stepReaches(engine, runId, 'lease.stuck', 'running');
    expect(held.claimed_by).toBe(stale.id);
    await leaseExpires(engine, held.id);
    expect(await engine.store.reclaimExpired()).toBe(1);

    const fresh = await engine.startWorker({
      handlers: { 'lease.stuck': () => 'from the fresh worker' },
    });
    expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({
      'lease.stuck': 'from the fresh worker',
    });
    const done = await stepRow(engine, runId, 'lease.stuck');
    expect(done).toMatchObject({
      state: 'completed',
      attempts: 1,
      reclaims: 1,
      claimed_by: fresh.id,
    });
    expect(done.claim_token).not.toBe(held.claim_token);

    // The stale worker's handler finishes late: its result is dropped, the output stays.
    stuck.open();
    await eventually(() => stale.activeSteps === 0, 'the stale handler to finish');
    expect(await stepRow(engine, runId, 'lease.stuck')).toMatchObject({
      state: 'completed',
      output: 'from the fresh worker',
      attempts: 1,
      claimed_by: fresh.id,
    });
    const types = (await eventRows(engine, runId)).map((e) => e.type);
    expect(types.filter((t) => t === 'step_completed')).toHaveLength(1);
    expect(types.filter((t) => t === 'run_completed')).toHaveLength(1);
  });

  it('limits reclaims to DefaultMaxReclaims when a submission gives no maxReclaims: a step that always crashes its worker ends in the DLQ', async () => {
    const { runId } = await engine.client.enqueue('lease.crashing', null);
    expect((await runRow(engine, runId)).max_reclaims).toBe(DefaultMaxReclaims);
    for (let reclaim = 0; reclaim <= DefaultMaxReclaims; reclaim += 1) {
      const claim = await claimOne('lease.crashing', `worker-${reclaim}`, 50);
      expect(claim.reclaims).toBe(reclaim);
      await leaseExpires(engine, claim.id);
      expect(await engine.store.reclaimExpired()).toBe(1);
    }
    expect(await stepRow(engine, runId, 'lease.crashing')).toMatchObject({
      state: 'discarded',
      error_kind: ErrorKind.ReclaimLimit,
      attempts: 0,
      reclaims: DefaultMaxReclaims,
    });
    expect((await runRow(engine, runId)).state).toBe('failed');
  });

  it('discards with reclaim_limit when the lease expires again after maxReclaims reclaims, charging no attempt', async () => {
    const { runId } = await engine.client.enqueue('lease.limited', null, { maxReclaims: 1 });
    expect((await runRow(engine, runId)).max_reclaims).toBe(1);

    const first = await claimOne('lease.limited', 'worker-1', 50);
    await leaseExpires(engine, first.id);
    expect(await engine.store.reclaimExpired()).toBe(1);
    expect(await stepRow(engine, runId, 'lease.limited')).toMatchObject({
      state: 'available',
      reclaims: 1,
      attempts: 0,
    });

    const second = await claimOne('lease.limited', 'worker-2', 50);
    expect(second.reclaims).toBe(1);
    await leaseExpires(engine, second.id);
    expect(await engine.store.reclaimExpired()).toBe(1);

    const step = await stepRow(engine, runId, 'lease.limited');
    expect(step).toMatchObject({
      state: 'discarded',
      error_kind: ErrorKind.ReclaimLimit,
      attempts: 0,
      reclaims: 1,
      lease_expires_at: null,
    });
    expect(step.error).toMatch(/reclaim/);
    expect(step.ended_at).toBeInstanceOf(Date);

    const run = await runRow(engine, runId);
    expect(run).toMatchObject({
      state: 'failed',
      error_kind: 'reclaim_limit',
      failed_node: 'lease.limited',
      open_steps: 0,
      reclaim_count: 1,
      failure_count: 0,
    });
    expect(run.ended_at).toBeInstanceOf(Date);
    expect(
      (await eventRows(engine, runId)).map((e) => [e.type, e.from_state, e.to_state, e.error_kind]),
    ).toEqual([
      ['run_submitted', null, 'running', null],
      ['step_started', 'available', 'running', null],
      ['step_reclaimed', 'running', 'available', null],
      ['step_started', 'available', 'running', null],
      ['step_discarded', 'running', 'discarded', 'reclaim_limit'],
      ['run_failed', 'running', 'failed', 'reclaim_limit'],
    ]);
    const status = await engine.client.wait(runId, { timeout: '1s' });
    expect(status).toMatchObject({ state: 'failed', errorKind: 'reclaim_limit' });
  });

  it('does not dead-letter a step whose lease was renewed after the sweep found it expired', async () => {
    const { runId } = await engine.client.enqueue('lease.renewed', null, { maxReclaims: 0 });
    const claim = await claimOne('lease.renewed', 'slow-worker', 50);
    await leaseExpires(engine, claim.id);

    // Hold the run's lock so the sweep stops between finding the step and discarding it.
    const blocker = await engine.pool.connect();
    let sweep: Promise<number> | undefined;
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM cyclone_runs WHERE id = $1 FOR UPDATE', [runId]);
      sweep = engine.store.reclaimExpired();
      await eventually(
        async () =>
          (
            await engine.query(
              `SELECT 1 FROM pg_stat_activity
               WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            )
          ).length > 0,
        'the sweep to wait for the run lock',
      );
      // Meanwhile the worker's heartbeat renews the lease: it still holds the step.
      const held = await engine.store.heartbeat(
        [{ stepId: claim.id, claimToken: claim.claimToken }],
        60_000,
      );
      expect([...held]).toEqual([claim.id]);
      await blocker.query('COMMIT');
    } finally {
      blocker.release();
    }
    // The sweep moved nothing.
    expect(await sweep).toBe(0);

    // The lease is live again, so the step is not expired and must not be dead-lettered.
    const step = await stepRow(engine, runId, 'lease.renewed');
    expect(step).toMatchObject({
      state: 'running',
      claim_token: claim.claimToken,
      error_kind: null,
    });
    expect((await runRow(engine, runId)).state).toBe('running');
    // And the worker can still record its result.
    const accepted = await engine.store.complete([
      { stepId: claim.id, claimToken: claim.claimToken, outputJson: '"done"' },
    ]);
    expect([...accepted]).toEqual([claim.id]);
    expect((await runRow(engine, runId)).state).toBe('completed');
  });

  it('with maxReclaims 0 discards on the first expiry', async () => {
    const { runId } = await engine.client.enqueue('lease.none', null, { maxReclaims: 0 });
    const claim = await claimOne('lease.none', 'worker-0', 50);
    await leaseExpires(engine, claim.id);
    expect(await engine.store.reclaimExpired()).toBe(1);
    expect(await stepRow(engine, runId, 'lease.none')).toMatchObject({
      state: 'discarded',
      error_kind: 'reclaim_limit',
      reclaims: 0,
      attempts: 0,
    });
    expect((await runRow(engine, runId)).state).toBe('failed');
  });
});

describe('a stale worker is fenced by its claim token', () => {
  it("rejects the first claim's completion after a reclaim and a new claim, writing nothing, and accepts the new claim's", async () => {
    const { runId } = await engine.client.enqueue('lease.fence', null);
    const a = await claimOne('lease.fence', 'worker-A', 50);
    await leaseExpires(engine, a.id);
    expect(await engine.store.reclaimExpired()).toBe(1);
    const b = await claimOne('lease.fence', 'worker-B', 60_000);
    expect(b.id).toBe(a.id);
    expect(b.claimToken).not.toBe(a.claimToken);
    const eventsBefore = (await eventRows(engine, runId)).length;

    // Every write of the stale claim is refused.
    const staleCompletion = await engine.store.complete([
      { stepId: a.id, claimToken: a.claimToken, outputJson: JSON.stringify('from A') },
    ]);
    expect([...staleCompletion]).toEqual([]);
    expect(
      await engine.store.fail({
        stepId: a.id,
        claimToken: a.claimToken,
        errorKind: ErrorKind.Permanent,
        error: 'A failed late',
        panicStack: null,
        attempts: 0,
        maxAttempts: 3,
        retryDelayMs: 0,
      }),
    ).toBe('fenced');
    expect(
      await engine.store.fail({
        stepId: a.id,
        claimToken: a.claimToken,
        errorKind: ErrorKind.Retryable,
        error: 'A failed late',
        panicStack: null,
        attempts: 0,
        maxAttempts: 3,
        retryDelayMs: 0,
      }),
    ).toBe('fenced');
    expect(await engine.store.snooze(a.id, a.claimToken, 1000)).toBe(false);
    expect(await engine.store.release(a.id, a.claimToken)).toBe(false);
    expect([
      ...(await engine.store.heartbeat([{ stepId: a.id, claimToken: a.claimToken }], 60_000)),
    ]).toEqual([]);

    const untouched = await stepRow(engine, runId, 'lease.fence');
    expect(untouched).toMatchObject({
      state: 'running',
      claim_token: b.claimToken,
      claimed_by: 'worker-B',
      output: null,
      attempts: 0,
      error: null,
      error_kind: null,
    });
    expect((await eventRows(engine, runId)).length).toBe(eventsBefore);
    expect((await runRow(engine, runId)).failure_count).toBe(0);

    // The current claim's completion is accepted.
    const accepted = await engine.store.complete([
      { stepId: b.id, claimToken: b.claimToken, outputJson: JSON.stringify('from B') },
    ]);
    expect([...accepted]).toEqual([b.id]);
    expect(await stepRow(engine, runId, 'lease.fence')).toMatchObject({
      state: 'completed',
      output: 'from B',
      attempts: 1,
    });
    expect((await runRow(engine, runId)).state).toBe('completed');

    // And the stale one is still refused once the step is completed.
    const late = await engine.store.complete([
      { stepId: a.id, claimToken: a.claimToken, outputJson: JSON.stringify('from A') },
    ]);
    expect([...late]).toEqual([]);
    expect((await stepRow(engine, runId, 'lease.fence')).output).toBe('from B');
  });

  it('refuses a completion for a step that was reclaimed but not claimed again', async () => {
    const { runId } = await engine.client.enqueue('lease.gap', null);
    const a = await claimOne('lease.gap', 'worker-A', 50);
    await leaseExpires(engine, a.id);
    expect(await engine.store.reclaimExpired()).toBe(1);
    const refused = await engine.store.complete([
      { stepId: a.id, claimToken: a.claimToken, outputJson: '"late"' },
    ]);
    expect([...refused]).toEqual([]);
    expect(await stepRow(engine, runId, 'lease.gap')).toMatchObject({
      state: 'available',
      output: null,
      attempts: 0,
    });
    expect((await runRow(engine, runId)).open_steps).toBe(1);
  });

  it('renews the lease of a step whose worker keeps heartbeating, so the sweep leaves it alone', async () => {
    const release = gate();
    await engine.startWorker({
      handlers: { 'lease.beat': () => release.promise },
      leaseDuration: '300ms',
      heartbeatInterval: '50ms',
    });
    const { runId } = await engine.client.enqueue('lease.beat', null);
    const first = await stepReaches(engine, runId, 'lease.beat', 'running');
    // Wait past the first lease's end by the database clock: the heartbeats moved it forward.
    await eventually(async () => {
      const [row] = await engine.query<{ passed: boolean }>(
        'SELECT now() > $1::timestamptz AS passed',
        [first.lease_expires_at],
      );
      return row!.passed;
    }, 'the first lease to pass');
    expect(await engine.store.reclaimExpired()).toBe(0);
    const step = await stepRow(engine, runId, 'lease.beat');
    expect(step.state).toBe('running');
    expect(step.lease_expires_at!.getTime()).toBeGreaterThan(first.lease_expires_at!.getTime());
    release.open();
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect((await stepRow(engine, runId, 'lease.beat')).reclaims).toBe(0);
  });

  it('releases a held step when the worker stops past its timeout: available, no attempt charged, the handler aborted', async () => {
    const aborted = gate<unknown>();
    const worker = await engine.startWorker({
      handlers: {
        'lease.shutdown': (ctx) =>
          new Promise((_, reject) => {
            ctx.signal.addEventListener('abort', () => {
              aborted.open(ctx.signal.reason);
              reject(ctx.signal.reason as Error);
            });
          }),
      },
    });
    const { runId } = await engine.client.enqueue('lease.shutdown', null);
    const held = await stepReaches(engine, runId, 'lease.shutdown', 'running');
    await worker.stop({ timeout: '100ms' });

    expect(((await aborted.promise) as Error).message).toMatch(/shutdown/);
    expect(await stepRow(engine, runId, 'lease.shutdown')).toMatchObject({
      state: 'available',
      attempts: 0,
      reclaims: 0,
      lease_expires_at: null,
      error_kind: null,
    });
    const released = (await eventRows(engine, runId)).filter((e) => e.type === 'step_released');
    expect(released.map((e) => [e.step_id, e.from_state, e.to_state])).toEqual([
      [held.id, 'running', 'available'],
    ]);
    expect(await runRow(engine, runId)).toMatchObject({ state: 'running', failure_count: 0 });

    // Another worker picks it up as the same first attempt.
    const attempts: number[] = [];
    await engine.startWorker({
      handlers: { 'lease.shutdown': (ctx) => void attempts.push(ctx.attempt) },
    });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect(attempts).toEqual([1]);
  });

  it('stops the old attempt and keeps tracking the new one when a worker claims its own reclaimed step again', async () => {
    const first = gate();
    const second = gate();
    const calls: { attempt: number; signal: AbortSignal; returned: boolean }[] = [];
    const worker = await engine.startWorker({
      handlers: {
        'lease.again': async (ctx) => {
          const call = { attempt: ctx.attempt, signal: ctx.signal, returned: false };
          calls.push(call);
          // The first call ignores its abort; the second honours it, so the stop can release it.
          await (calls.length === 1
            ? first.promise
            : Promise.race([second.promise, untilAborted(ctx.signal)]));
          call.returned = true;
          return `call ${calls.indexOf(call) + 1}`;
        },
      },
      leaseDuration: '200ms',
      heartbeatInterval: '1h',
      concurrency: 2,
    });
    const { runId } = await engine.client.enqueue('lease.again', null);
    const a = await stepReaches(engine, runId, 'lease.again', 'running');
    await leaseExpires(engine, a.id);
    expect(await engine.store.reclaimExpired()).toBe(1);

    // The same worker claims the step again: a second call of the handler, for the same attempt.
    await eventually(() => calls.length === 2, 'the worker to claim its reclaimed step again');
    const b = await stepRow(engine, runId, 'lease.again');
    expect(b).toMatchObject({ state: 'running', claimed_by: worker.id, reclaims: 1, attempts: 0 });
    expect(b.claim_token).not.toBe(a.claim_token);
    expect(calls.map((c) => c.attempt)).toEqual([1, 1]);

    // Its first call has lost the step, and is told so.
    await eventually(() => calls[0]!.signal.aborted, 'the first call to be aborted');
    expect(calls[1]!.signal.aborted).toBe(false);

    // The first call returning late neither records anything nor drops the second call.
    first.open();
    await eventually(() => calls[0]!.returned, 'the first call to return');
    expect(await stepRow(engine, runId, 'lease.again')).toMatchObject({
      state: 'running',
      claim_token: b.claim_token,
      output: null,
    });
    // A stop past its timeout still knows the second call: it aborts it and releases the step.
    await worker.stop({ timeout: '300ms' });
    expect(calls[1]!.signal.aborted).toBe(true);
    expect(await stepRow(engine, runId, 'lease.again')).toMatchObject({
      state: 'available',
      attempts: 0,
      lease_expires_at: null,
    });
    const types = (await eventRows(engine, runId)).map((e) => e.type);
    expect(types).toEqual([
      'run_submitted',
      'step_started',
      'step_reclaimed',
      'step_started',
      'step_released',
    ]);
    second.open();
  });
});
