import { describe, expect, it } from 'vitest';
import { ErrorKind, ErrorTextBytes, permanent, snooze } from '@cyclone/core';
import { decideOutcome, type OutcomeStep } from './executor.js';

const step: OutcomeStep = {
  node: 'charge',
  attempts: 0,
  maxAttempts: 3,
  backoff: { initialMs: 1_000, maxMs: 60_000, factor: 2, jitter: 0 },
};
const options = { maxOutputBytes: 1_000, random: () => 0.5 };

describe('decideOutcome', () => {
  it('completes with the output as JSON, and undefined as null', () => {
    expect(decideOutcome({ ok: true, output: { a: 1 } }, step, options)).toEqual({
      type: 'complete',
      outputJson: '{"a":1}',
    });
    expect(decideOutcome({ ok: true, output: undefined }, step, options)).toEqual({
      type: 'complete',
      outputJson: 'null',
    });
  });

  it('discards an output that cannot be stored as permanent, naming the path', () => {
    const outcome = decideOutcome({ ok: true, output: { n: 10n } }, step, options);
    expect(outcome).toMatchObject({ type: 'discard', errorKind: ErrorKind.Permanent });
    expect(outcome.type === 'discard' && outcome.error.message).toContain('output.n');
    const big = decideOutcome({ ok: true, output: 'x'.repeat(2_000) }, step, options);
    expect(big).toMatchObject({ type: 'discard', errorKind: ErrorKind.Permanent });
  });

  it('snoozes on snooze(d) without looking at attempts', () => {
    const last = { ...step, attempts: 2 };
    expect(decideOutcome({ ok: false, error: snooze('2s') }, last, options)).toEqual({
      type: 'snooze',
      delayMs: 2_000,
    });
  });

  it('retries an ordinary error with the backoff of the attempt, and discards it on the last attempt', () => {
    const second = decideOutcome(
      { ok: false, error: new Error('flaky') },
      { ...step, attempts: 1 },
      options,
    );
    expect(second).toMatchObject({
      type: 'retry',
      errorKind: ErrorKind.Retryable,
      retryDelayMs: 2_000,
      error: { name: 'Error', message: 'flaky' },
    });
    const last = decideOutcome(
      { ok: false, error: new Error('flaky') },
      { ...step, attempts: 2 },
      options,
    );
    expect(last).toMatchObject({ type: 'discard', errorKind: ErrorKind.Retryable });
  });

  it('discards on permanent(err) at once', () => {
    expect(
      decideOutcome({ ok: false, error: permanent(new Error('declined')) }, step, options),
    ).toMatchObject({
      type: 'discard',
      errorKind: ErrorKind.Permanent,
      error: { message: 'declined' },
    });
  });

  it('turns every hostile thrown value into storable text instead of throwing', () => {
    const getter = new Error('x');
    Object.defineProperty(getter, 'message', {
      get() {
        throw new Error('no');
      },
    });
    const codeGetter = new Error('code getter');
    Object.defineProperty(codeGetter, 'code', {
      get() {
        throw new Error('no');
      },
    });
    const values: unknown[] = [
      new Error('a\u0000b'),
      permanent(new Error('a\u0000b')),
      Object.create(null),
      getter,
      codeGetter,
      10n,
      Symbol('thrown'),
      new Error('lone \uD800 surrogate'),
      new Error('m'.repeat(1_000_000)),
    ];
    for (const error of values) {
      const outcome = decideOutcome({ ok: false, error }, step, options);
      if (outcome.type !== 'retry' && outcome.type !== 'discard') throw new Error('not a failure');
      expect(outcome.error.message).not.toContain('\u0000');
      expect(outcome.error.message).not.toMatch(/[\uD800-\uDFFF]/);
      expect(new TextEncoder().encode(outcome.error.message).length).toBeLessThanOrEqual(
        ErrorTextBytes,
      );
    }
    const nul = decideOutcome(
      { ok: false, error: permanent(new Error('a\u0000b')) },
      step,
      options,
    );
    expect(nul).toMatchObject({ errorKind: ErrorKind.Permanent, error: { message: 'a\\u0000b' } });
  });
});
