import { describe, expect, it } from 'vitest';
import { eventually } from '../engine.js';
import { stepRow, useTransitionEngine } from '../transitions/helpers.js';
import { capturingLogger } from './helpers.js';

const engine = useTransitionEngine();

const secretMessage =
  'connect to postgres://app:hunter2@db.internal/prod failed; password=hunter2 token=t0k3n';

function leaky(): Error {
  return Object.assign(new Error(secretMessage), { code: 'E_CONNECT' });
}

describe('what the worker logs of a failed step', () => {
  it('logs the error class and code but not the message by default', async () => {
    const log = capturingLogger();
    await engine.startWorker({
      logger: log.logger,
      handlers: {
        'logs.default': () => {
          throw leaky();
        },
      },
    });
    const { runId } = await engine.client.enqueue(
      'logs.default',
      { card: 'payload-marker' },
      {
        maxAttempts: 1,
      },
    );
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    // The run ends inside the failure's transaction; the worker logs once that call returns.
    const failed = await eventually(
      () => log.lines.find((l) => l.msg === 'step failed'),
      'the step failed log line',
    );
    expect(failed).toMatchObject({
      level: 30,
      errorKind: 'retryable',
      outcome: 'discarded',
      error: { type: 'Error', code: 'E_CONNECT' },
    });
    expect((failed.error as Record<string, unknown>).message).toBeUndefined();
    expect(log.text()).not.toContain('hunter2');
    expect(log.text()).not.toContain('t0k3n');
    expect(log.text()).not.toContain('payload-marker');
    // What is stored for the operator is the message itself.
    expect((await stepRow(engine, runId, 'logs.default')).error).toBe(secretMessage);
  });

  it('logs the message with secrets redacted when logErrorMessages is on', async () => {
    const log = capturingLogger();
    await engine.startWorker({
      logger: log.logger,
      logErrorMessages: true,
      handlers: {
        'logs.opted-in': () => {
          throw leaky();
        },
      },
    });
    const { runId } = await engine.client.enqueue('logs.opted-in', null, { maxAttempts: 1 });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    // The run ends inside the failure's transaction; the worker logs once that call returns.
    const failed = await eventually(
      () => log.lines.find((l) => l.msg === 'step failed'),
      'the step failed log line',
    );
    expect(failed.error).toEqual({
      type: 'Error',
      code: 'E_CONNECT',
      message:
        'connect to postgres://app:[redacted]@db.internal/prod failed; password=[redacted] token=[redacted]',
    });
    expect(log.text()).not.toContain('hunter2');
    expect(log.text()).not.toContain('t0k3n');
  });

  it('logs nothing above info for a step that succeeds', async () => {
    // At info, as in production: a debug logger would hide a warning written in its place.
    const log = capturingLogger('info');
    const worker = await engine.startWorker({
      logger: log.logger,
      handlers: { 'logs.quiet': () => ({ ok: true }) },
    });
    const { runId } = await engine.client.enqueue('logs.quiet', null);
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    await worker.stop();
    expect(log.lines.map((l) => l.msg)).toContain('worker stopped');
    expect(log.lines.filter((l) => (l.level as number) > 30)).toEqual([]);
  });
});
