import { describe, expect, it } from 'vitest';
import { ErrorTextBytes, PanicStackBytes, permanent } from '@cyclone/core';
import { runRow, stepRow, useTransitionEngine } from '../transitions/helpers.js';
import { capturingLogger } from './helpers.js';

const engine = useTransitionEngine();

function messageGetterThrows(): Error {
  const error = new Error('unreadable');
  Object.defineProperty(error, 'message', {
    get() {
      throw new Error('the getter broke');
    },
  });
  return error;
}

/** Thrown values that cannot be recorded as they are, and the error text each one is stored as. */
const hostile: [string, () => unknown, string][] = [
  ['nul', () => new Error('a\u0000b'), 'a\\u0000b'],
  ['null-prototype', () => Object.create(null), '{}'],
  ['message-getter', messageGetterThrows, '[a Error whose message could not be read]'],
  ['bigint', () => 10n, '10n'],
  ['symbol', () => Symbol('boom'), 'Symbol(boom)'],
  ['surrogate', () => new Error('lone \uD800 surrogate'), 'lone \uFFFD surrogate'],
];

describe('a handler error that cannot be recorded as it is', () => {
  it.each(hostile)(
    'records a thrown %s as safe text and ends the attempt, running the handler once',
    async (name, thrown, stored) => {
      const kind = `hostile.${name}`;
      let calls = 0;
      await engine.startWorker({
        handlers: {
          [kind]: () => {
            calls++;
            throw thrown();
          },
        },
      });
      const { runId } = await engine.client.enqueue(kind, null, { maxAttempts: 1 });
      expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
      expect(await stepRow(engine, runId, kind)).toMatchObject({
        state: 'discarded',
        attempts: 1,
        reclaims: 0,
        error_kind: 'retryable',
        error: stored,
      });
      expect(calls).toBe(1);
    },
  );

  it('discards permanent(error with \\u0000) at once as permanent, with the text escaped', async () => {
    let calls = 0;
    await engine.startWorker({
      handlers: {
        'hostile.permanent': () => {
          calls++;
          throw permanent(new Error('card\u0000declined'));
        },
      },
    });
    const { runId } = await engine.client.enqueue('hostile.permanent', null, { maxAttempts: 5 });
    expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
    const step = await stepRow(engine, runId, 'hostile.permanent');
    expect(step).toMatchObject({
      state: 'discarded',
      attempts: 1,
      error_kind: 'permanent',
      error: 'card\\u0000declined',
    });
    expect(step.panic_stack).toContain('card\\u0000declined');
    expect(calls).toBe(1);
  });

  it('discards the step with a fixed error when the database refuses the failure for good', async () => {
    // A trigger stands for any refusal a retry cannot cure; its detail must not reach the logs.
    await engine.query(`
      CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'refused by the test trigger' USING DETAIL = 'row holds hunter2';
      END $$`);
    await engine.query(`
      CREATE TRIGGER refuse_poison BEFORE UPDATE ON cyclone_steps
      FOR EACH ROW WHEN (NEW.error LIKE '%poison%') EXECUTE FUNCTION refuse_poison()`);
    const log = capturingLogger();
    let calls = 0;
    try {
      await engine.startWorker({
        logger: log.logger,
        handlers: {
          'hostile.refused': () => {
            calls++;
            throw new Error('poison pill');
          },
        },
      });
      const { runId } = await engine.client.enqueue('hostile.refused', null, { maxAttempts: 3 });
      expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
      const step = await stepRow(engine, runId, 'hostile.refused');
      expect(step).toMatchObject({
        state: 'discarded',
        attempts: 1,
        error_kind: 'permanent',
        error: "the handler's error could not be recorded: P0001 refused by the test trigger",
      });
      expect((await runRow(engine, runId)).error_kind).toBe('permanent');
      expect(calls).toBe(1);
      expect(log.text()).not.toContain('hunter2');
    } finally {
      await engine.query('DROP TRIGGER refuse_poison ON cyclone_steps');
    }
  });

  it('discards the step with a fixed error when the database refuses the output for good', async () => {
    await engine.query(`
      CREATE FUNCTION refuse_output() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'output refused by the test trigger';
      END $$`);
    await engine.query(`
      CREATE TRIGGER refuse_output BEFORE UPDATE ON cyclone_steps
      FOR EACH ROW WHEN (NEW.output::text LIKE '%poison%') EXECUTE FUNCTION refuse_output()`);
    try {
      await engine.startWorker({ handlers: { 'hostile.output': () => 'poison output' } });
      const { runId } = await engine.client.enqueue('hostile.output', null);
      expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('failed');
      expect(await stepRow(engine, runId, 'hostile.output')).toMatchObject({
        state: 'discarded',
        error_kind: 'permanent',
        output: null,
        error:
          "the handler's output could not be recorded: P0001 output refused by the test trigger",
      });
    } finally {
      await engine.query('DROP TRIGGER refuse_output ON cyclone_steps');
    }
  });
});

describe('error text size', () => {
  it('caps a 10 MB message and its stack, marking the cut, and keeps it out of the log', async () => {
    const log = capturingLogger();
    await engine.startWorker({
      logger: log.logger,
      logErrorMessages: true,
      handlers: {
        'hostile.huge': () => {
          throw new Error('m'.repeat(10_000_000));
        },
      },
    });
    const { runId } = await engine.client.enqueue('hostile.huge', null, { maxAttempts: 1 });
    expect((await engine.client.wait(runId, { timeout: '20s' })).state).toBe('failed');
    const [sizes] = await engine.query<{ error: number; stack: number; run: number }>(
      `SELECT octet_length(s.error) AS error, octet_length(s.panic_stack) AS stack,
              octet_length(r.error) AS run
       FROM cyclone_steps s JOIN cyclone_runs r ON r.id = s.run_id WHERE s.run_id = $1`,
      [runId],
    );
    expect(sizes!.error).toBeLessThanOrEqual(ErrorTextBytes);
    expect(sizes!.stack).toBeLessThanOrEqual(PanicStackBytes);
    expect(sizes!.run).toBeLessThanOrEqual(ErrorTextBytes);
    const step = await stepRow(engine, runId, 'hostile.huge');
    expect(step.error).toMatch(/^m+\.\.\. \[truncated 10\.0 MB\]$/);
    expect(step.panic_stack).toMatch(/^Error: m+\.\.\. \[truncated 10\.0 MB\]$/);
    expect(log.text().length).toBeLessThan(64 * 1024);
  });
});
