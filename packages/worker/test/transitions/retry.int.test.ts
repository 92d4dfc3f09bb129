import { describe, expect, it } from 'vitest';
import { ErrorKind, snooze, workflow } from '@cyclone/core';
import { eventually } from '../engine.js';
import {
  eventRows,
  runRow,
  secondsFromNow,
  stepReaches,
  stepRow,
  untilAborted,
  useTransitionEngine,
} from './helpers.js';

const engine = useTransitionEngine();

/** Waits until the step is back to available with an error recorded and `attempts` ended attempts. */
async function requeued(runId: string, node: string, attempts?: number) {
  return eventually(async () => {
    const row = await stepRow(engine, runId, node);
    const ready =
      row.state === 'available' &&
      row.error_kind !== null &&
      (attempts === undefined || row.attempts === attempts);
    return ready ? row : undefined;
  }, `node ${node} to be requeued`);
}

describe('running -> available on a retryable error', () => {
  it('charges the attempt, records the error and its stack, and schedules the next attempt after the backoff', async () => {
    const flaky = workflow('retry-flaky')
      .task('charge', 'retry.charge', {
        maxAttempts: 3,
        backoff: { initial: '1m', jitter: 0 },
      })
      .build();
    let calls = 0;
    await engine.startWorker({
      handlers: {
        'retry.charge': function chargeCard(ctx) {
          if (ctx.input === 'probe') return 'probed';
          calls++;
          throw new Error('gateway unavailable');
        },
      },
      workflows: [flaky],
    });
    const { runId } = await engine.client.submit(flaky, null);
    const step = await requeued(runId, 'charge');

    expect(calls).toBe(1);
    expect(step.attempts).toBe(1);
    expect(step.max_attempts).toBe(3);
    expect(step.error_kind).toBe('retryable');
    expect(step.error).toBe('gateway unavailable');
    expect(step.panic_stack).toContain('Error: gateway unavailable');
    expect(step.panic_stack).toContain('chargeCard');
    expect(step.lease_expires_at).toBeNull();
    expect(step.ended_at).toBeNull();
    expect(step.output).toBeNull();
    expect(step.reclaims).toBe(0);
    // now() + 1m by the database clock, no jitter.
    const delay = await secondsFromNow(engine, step.id, 'scheduled_at');
    expect(delay).toBeGreaterThan(50);
    expect(delay).toBeLessThanOrEqual(60);

    const run = await runRow(engine, runId);
    expect(run).toMatchObject({
      state: 'running',
      failure_count: 1,
      open_steps: 1,
      error_kind: null,
    });

    const retried = (await eventRows(engine, runId)).filter(
      (e) => e.type === 'step_retry_scheduled',
    );
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatchObject({
      step_id: step.id,
      node: 'charge',
      from_state: 'running',
      to_state: 'available',
      error_kind: 'retryable',
      detail: { attempt: 1, delayMs: 60_000 },
    });

    // The step stays put for its backoff: a job of the same kind that is due now is claimed and
    // finished by the same worker, which leaves the backed-off step alone.
    const probe = await engine.client.enqueue('retry.charge', 'probe');
    expect((await engine.client.wait(probe.runId, { timeout: '10s' })).state).toBe('completed');
    expect(calls).toBe(1);
    expect((await stepRow(engine, runId, 'charge')).state).toBe('available');
  });

  it('passes the next attempt number to the handler and completes on a later success, keeping the last error', async () => {
    const attempts: number[] = [];
    await engine.startWorker({
      handlers: {
        'retry.eventually': (ctx) => {
          attempts.push(ctx.attempt);
          if (ctx.attempt < 3) throw new Error(`attempt ${ctx.attempt} failed`);
          return 'ok';
        },
      },
    });
    const { runId } = await engine.client.enqueue('retry.eventually', null, { maxAttempts: 3 });
    // Standalone jobs use the default backoff (1s, 2s): shorten it by moving scheduled_at.
    for (const ended of [1, 2]) {
      const step = await requeued(runId, 'retry.eventually', ended);
      const delay = await secondsFromNow(engine, step.id, 'scheduled_at');
      // The default backoff: 1s then 2s, less up to 20% jitter.
      expect(delay).toBeGreaterThan(0.8 * 2 ** (ended - 1) - 0.5);
      expect(delay).toBeLessThanOrEqual(2 ** (ended - 1));
      await engine.query('UPDATE cyclone_steps SET scheduled_at = now() WHERE id = $1', [step.id]);
    }
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect(attempts).toEqual([1, 2, 3]);
    const step = await stepRow(engine, runId, 'retry.eventually');
    expect(step).toMatchObject({
      state: 'completed',
      attempts: 3,
      output: 'ok',
      // A later success does not clear the last failure.
      error_kind: 'retryable',
      error: 'attempt 2 failed',
    });
    expect((await runRow(engine, runId)).failure_count).toBe(2);
  });

  it('treats a handler timeout as a retryable failure and aborts the handler signal', async () => {
    const slow = workflow('retry-timeout')
      .task('slow', 'retry.slow', {
        timeout: '50ms',
        maxAttempts: 2,
        backoff: { initial: '1m', jitter: 0 },
      })
      .build();
    const reasons: unknown[] = [];
    await engine.startWorker({
      handlers: {
        'retry.slow': async (ctx) => {
          try {
            return await untilAborted(ctx.signal);
          } catch (error) {
            reasons.push(error);
            throw error;
          }
        },
      },
      workflows: [slow],
    });
    const { runId } = await engine.client.submit(slow, null);
    const step = await requeued(runId, 'slow');
    expect(step).toMatchObject({
      attempts: 1,
      error_kind: 'retryable',
      error: 'step timed out after 50ms',
    });
    expect(step.panic_stack).toContain('StepTimeoutError');
    const delay = await secondsFromNow(engine, step.id, 'scheduled_at');
    expect(delay).toBeGreaterThan(50);
    expect(delay).toBeLessThanOrEqual(60);
    expect(reasons).toHaveLength(1);
    expect((reasons[0] as Error).message).toBe('step timed out after 50ms');
    const events = (await eventRows(engine, runId)).map((e) => [e.type, e.error_kind]);
    expect(events).toContainEqual(['step_retry_scheduled', 'retryable']);
  });
});

describe('running -> available on snooze', () => {
  it('delays the same attempt without charging it, with error kind snooze', async () => {
    const attempts: number[] = [];
    await engine.startWorker({
      handlers: {
        'retry.snooze': (ctx) => {
          attempts.push(ctx.attempt);
          throw snooze('1m');
        },
      },
    });
    const { runId } = await engine.client.enqueue('retry.snooze', null, { maxAttempts: 1 });
    const step = await requeued(runId, 'retry.snooze');
    expect(step).toMatchObject({
      state: 'available',
      attempts: 0,
      max_attempts: 1,
      error_kind: 'snooze',
      lease_expires_at: null,
      ended_at: null,
    });
    const delay = await secondsFromNow(engine, step.id, 'scheduled_at');
    expect(delay).toBeGreaterThan(50);
    expect(delay).toBeLessThanOrEqual(60);
    // A snooze is not a failure of the run.
    expect(await runRow(engine, runId)).toMatchObject({ state: 'running', failure_count: 0 });
    const snoozed = (await eventRows(engine, runId)).filter((e) => e.type === 'step_snoozed');
    expect(snoozed).toHaveLength(1);
    expect(snoozed[0]).toMatchObject({
      from_state: 'running',
      to_state: 'available',
      error_kind: 'snooze',
      detail: { delayMs: 60_000 },
    });

    // With maxAttempts 1, a snoozed step still has its one attempt: the next claim is attempt 1 again.
    await engine.query('UPDATE cyclone_steps SET scheduled_at = now() WHERE id = $1', [step.id]);
    await eventually(() => attempts.length === 2, 'the snoozed attempt to run again');
    expect(attempts).toEqual([1, 1]);
    await stepReaches(engine, runId, 'retry.snooze', 'available');
    expect((await stepRow(engine, runId, 'retry.snooze')).attempts).toBe(0);
  });
});

describe('running -> available on a transient error', () => {
  it('requeues the same attempt without charging it, even on the last attempt', async () => {
    const { runId } = await engine.client.enqueue('retry.transient', null, { maxAttempts: 1 });
    const [claim] = await engine.store.claim({
      kinds: ['retry.transient'],
      limit: 1,
      workerId: 'reader',
      leaseMs: 60_000,
    });
    const outcome = await engine.store.fail({
      stepId: claim!.id,
      claimToken: claim!.claimToken,
      errorKind: ErrorKind.Transient,
      error: 'could not read the input: connection reset',
      panicStack: null,
      attempts: claim!.attempts,
      maxAttempts: claim!.maxAttempts,
      retryDelayMs: 0,
    });
    expect(outcome).toBe('retried');
    expect(await stepRow(engine, runId, 'retry.transient')).toMatchObject({
      state: 'available',
      attempts: 0,
      max_attempts: 1,
      error_kind: 'transient',
      error: 'could not read the input: connection reset',
      lease_expires_at: null,
    });
    expect(await runRow(engine, runId)).toMatchObject({ state: 'running', failure_count: 0 });

    // The one attempt is still there to run.
    const attempts: number[] = [];
    await engine.startWorker({
      handlers: { 'retry.transient': (ctx) => void attempts.push(ctx.attempt) },
    });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    expect(attempts).toEqual([1]);
  });
});
