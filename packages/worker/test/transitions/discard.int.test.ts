import { describe, expect, it } from 'vitest';
import { permanent, RunFailedError, workflow } from '@cyclone/core';
import {
  eventRows,
  eventTrail,
  runRow,
  stepRow,
  untilAborted,
  useTransitionEngine,
} from './helpers.js';

const engine = useTransitionEngine();

describe('running -> discarded', () => {
  it('discards at once on permanent(err): error kind permanent, one attempt, the cause message and stack', async () => {
    const pay = workflow('discard-permanent')
      .task('charge', 'discard.charge', { maxAttempts: 5 })
      .build();
    let calls = 0;
    await engine.startWorker({
      handlers: {
        'discard.charge': function declineCard() {
          calls++;
          throw permanent(new Error('card declined'));
        },
      },
      workflows: [pay],
    });
    const { runId } = await engine.client.submit(pay, null);
    const run = await engine.client.wait(runId, { timeout: '10s' });
    expect(run.state).toBe('failed');
    expect(calls).toBe(1);

    const step = await stepRow(engine, runId, 'charge');
    expect(step).toMatchObject({
      state: 'discarded',
      attempts: 1,
      max_attempts: 5,
      error_kind: 'permanent',
      error: 'card declined',
      lease_expires_at: null,
      output: null,
    });
    expect(step.ended_at).toBeInstanceOf(Date);
    expect(step.panic_stack).toContain('Error: card declined');
    expect(step.panic_stack).toContain('declineCard');

    expect(await runRow(engine, runId)).toMatchObject({
      state: 'failed',
      error_kind: 'permanent',
      error: 'card declined',
      failed_node: 'charge',
      open_steps: 0,
      failure_count: 1,
    });
    expect(await eventTrail(engine, runId)).toEqual([
      ['run_submitted', null, null, 'running', null],
      ['step_started', 'charge', 'available', 'running', null],
      ['step_discarded', 'charge', 'running', 'discarded', 'permanent'],
      ['run_failed', null, 'running', 'failed', 'permanent'],
    ]);
    const discarded = (await eventRows(engine, runId)).find((e) => e.type === 'step_discarded');
    expect(discarded!.detail).toMatchObject({ attempt: 1, trigger: 'permanent_error' });
  });

  it('discards after exactly maxAttempts retryable failures, with error kind retryable', async () => {
    const flaky = workflow('discard-exhausted')
      .task('call', 'discard.call', { maxAttempts: 2, backoff: { initial: '10ms', jitter: 0 } })
      .build();
    const attempts: number[] = [];
    await engine.startWorker({
      handlers: {
        'discard.call': (ctx) => {
          attempts.push(ctx.attempt);
          throw new Error(`still down (attempt ${ctx.attempt})`);
        },
      },
      workflows: [flaky],
    });
    const { runId } = await engine.client.submit(flaky, null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    expect(attempts).toEqual([1, 2]);

    expect(await stepRow(engine, runId, 'call')).toMatchObject({
      state: 'discarded',
      attempts: 2,
      max_attempts: 2,
      error_kind: 'retryable',
      error: 'still down (attempt 2)',
      lease_expires_at: null,
    });
    expect(await runRow(engine, runId)).toMatchObject({
      state: 'failed',
      error_kind: 'retryable',
      error: 'still down (attempt 2)',
      failed_node: 'call',
      failure_count: 2,
      open_steps: 0,
    });
    expect(await eventTrail(engine, runId)).toEqual([
      ['run_submitted', null, null, 'running', null],
      ['step_started', 'call', 'available', 'running', null],
      ['step_retry_scheduled', 'call', 'running', 'available', 'retryable'],
      ['step_started', 'call', 'available', 'running', null],
      ['step_discarded', 'call', 'running', 'discarded', 'retryable'],
      ['run_failed', null, 'running', 'failed', 'retryable'],
    ]);
    await expect(engine.client.result(runId)).rejects.toBeInstanceOf(RunFailedError);
  });

  it('discards a job with maxAttempts 1 on its first ordinary error', async () => {
    await engine.startWorker({
      handlers: {
        'discard.once': () => {
          throw new TypeError('bad shape');
        },
      },
    });
    const { runId } = await engine.client.enqueue('discard.once', null, { maxAttempts: 1 });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    expect(await stepRow(engine, runId, 'discard.once')).toMatchObject({
      state: 'discarded',
      attempts: 1,
      error_kind: 'retryable',
      error: 'bad shape',
    });
    const types = (await eventRows(engine, runId)).map((e) => e.type);
    expect(types).not.toContain('step_retry_scheduled');
  });

  it('counts a timeout on the last attempt as an exhausted retryable failure', async () => {
    await engine.startWorker({
      handlers: { 'discard.slow': (ctx) => untilAborted(ctx.signal) },
    });
    const { runId } = await engine.client.enqueue('discard.slow', null, {
      maxAttempts: 1,
      timeout: '50ms',
    });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    expect(await stepRow(engine, runId, 'discard.slow')).toMatchObject({
      state: 'discarded',
      attempts: 1,
      error_kind: 'retryable',
      error: 'step timed out after 50ms',
    });
  });

  it('discards a handler that throws something that is not an Error, keeping its text', async () => {
    await engine.startWorker({
      handlers: {
        'discard.string': () => {
          throw 'plain string failure';
        },
      },
    });
    const { runId } = await engine.client.enqueue('discard.string', null, { maxAttempts: 1 });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    expect(await stepRow(engine, runId, 'discard.string')).toMatchObject({
      state: 'discarded',
      error_kind: 'retryable',
      error: 'plain string failure',
      panic_stack: null,
    });
  });
});
