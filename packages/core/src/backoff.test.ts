import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type BackoffPolicy, DefaultBackoff, backoffCeiling, backoffDelay } from './backoff.js';
import { ValidationError } from './errors.js';
import { seededRandom } from './random.js';

const noJitter: BackoffPolicy = { ...DefaultBackoff, jitter: 0 };

const policyArb = fc
  .record({
    initialMs: fc.integer({ min: 0, max: 100_000 }),
    extraMs: fc.integer({ min: 0, max: 10_000_000 }),
    factor: fc.double({ min: 1, max: 10, noNaN: true }),
    jitter: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ initialMs, extraMs, factor, jitter }) => ({
    initialMs,
    maxMs: initialMs + extraMs,
    factor,
    jitter,
  }));

describe('DefaultBackoff', () => {
  test('starts at 1s, doubles, stops at 10m and takes off up to 20%', () => {
    expect(DefaultBackoff).toEqual({ initialMs: 1_000, maxMs: 600_000, factor: 2, jitter: 0.2 });
    expect(Object.isFrozen(DefaultBackoff)).toBe(true);
  });
});

describe('backoffDelay', () => {
  test('without jitter, grows by the factor after each failed attempt', () => {
    const delays = [1, 2, 3, 4, 5].map((attempt) => backoffDelay(noJitter, attempt));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
  });

  test('without jitter, never shrinks from one attempt to the next', () => {
    fc.assert(
      fc.property(policyArb, fc.integer({ min: 1, max: 200 }), (policy, attempt) => {
        const flat = { ...policy, jitter: 0 };
        expect(backoffDelay(flat, attempt + 1)).toBeGreaterThanOrEqual(backoffDelay(flat, attempt));
      }),
    );
  });

  test('is capped at the maximum, even for attempt numbers that overflow the power', () => {
    expect(backoffDelay(noJitter, 10)).toBe(512_000);
    expect(backoffDelay(noJitter, 11)).toBe(600_000);
    expect(backoffDelay(noJitter, 10_000)).toBe(600_000);
    expect(backoffDelay({ ...noJitter, initialMs: 0 }, 10_000)).toBe(0);
  });

  test('a factor of 1 gives a constant delay', () => {
    const constant = { ...noJitter, factor: 1, initialMs: 5_000 };
    expect([1, 2, 10].map((a) => backoffDelay(constant, a))).toEqual([5_000, 5_000, 5_000]);
  });

  test('jitter only takes off: the delay lies in [ceiling * (1 - jitter), ceiling], never negative, never above max', () => {
    fc.assert(
      fc.property(
        policyArb,
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (policy, attempt, r) => {
          const ceiling = backoffCeiling(policy, attempt);
          const delay = backoffDelay(policy, attempt, () => r);
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(ceiling * (1 - policy.jitter)));
          expect(delay).toBeLessThanOrEqual(ceiling);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(policy.maxMs);
        },
      ),
    );
  });

  test('with jitter 1, spreads delays over the whole range from zero to the ceiling (full jitter)', () => {
    const random = seededRandom(9);
    const full = { ...noJitter, jitter: 1 };
    const delays = Array.from({ length: 1_000 }, () => backoffDelay(full, 3, random));
    expect(Math.min(...delays)).toBeLessThan(400);
    expect(Math.max(...delays)).toBeGreaterThan(3_600);
    expect(Math.max(...delays)).toBeLessThanOrEqual(4_000);
  });

  test('at the cap, jittered delays stay spread out instead of piling up on the maximum', () => {
    const random = seededRandom(3);
    const delays = Array.from({ length: 200 }, () => backoffDelay(DefaultBackoff, 50, random));
    expect(delays.filter((d) => d === DefaultBackoff.maxMs).length).toBeLessThan(5);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(480_000);
  });

  test('is deterministic under a seeded random source', () => {
    const run = (seed: number) => {
      const random = seededRandom(seed);
      return [1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(DefaultBackoff, attempt, random));
    };
    expect(run(11)).toEqual(run(11));
    expect(run(11)).not.toEqual(run(12));
  });

  test('stays in range when the random source misbehaves', () => {
    for (const r of [1.5, -1, Number.NaN, 1]) {
      const delay = backoffDelay(DefaultBackoff, 2, () => r);
      expect(delay).toBeGreaterThanOrEqual(1_600);
      expect(delay).toBeLessThanOrEqual(2_000);
    }
  });

  test('refuses an attempt number that is not a positive integer', () => {
    for (const attempt of [0, -1, 1.5, Number.NaN]) {
      let error: unknown;
      try {
        backoffDelay(DefaultBackoff, attempt);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues[0]).toMatchObject({
        path: 'attempt',
        message: expect.stringContaining('1-based number'),
      });
    }
  });
});
