import { ValidationError } from './errors.js';

/**
 * How long a step waits before its next attempt after a retryable failure, in the built form stored
 * in a workflow definition (milliseconds and plain numbers, so it survives JSON).
 *
 * The delay after failed attempt `a` is `min(maxMs, initialMs * factor^(a-1))`, then reduced by up
 * to `jitter` of itself (see {@link backoffDelay}).
 */
export interface BackoffPolicy {
  /**
   * Delay after the first failed attempt, in milliseconds.
   * @defaultValue `1000` (1s)
   */
  readonly initialMs: number;
  /**
   * Upper bound of any delay, in milliseconds. A hard bound: jitter never exceeds it.
   * @defaultValue `600000` (10m)
   */
  readonly maxMs: number;
  /**
   * Growth per failed attempt; `1` gives a constant delay.
   * @defaultValue `2`
   */
  readonly factor: number;
  /**
   * Fraction of the delay, from `0` (none) to `1` (anywhere between zero and the full delay), that
   * is randomly taken off each delay so that steps which failed together do not retry together.
   * @defaultValue `0.2`
   */
  readonly jitter: number;
}

/** The backoff a task or fan-out node gets when neither the node nor the workflow's defaults set one. */
export const DefaultBackoff: BackoffPolicy = Object.freeze({
  initialMs: 1_000,
  maxMs: 600_000,
  factor: 2,
  jitter: 0.2,
});

/**
 * The delay before the next attempt with jitter left out: the largest value {@link backoffDelay}
 * can return for this attempt. Useful to show "retries in at most ...".
 *
 * @param attempt - the 1-based number of the attempt that failed
 */
export function backoffCeiling(policy: BackoffPolicy, attempt: number): number {
  checkAttempt(attempt);
  const initial = Math.max(0, policy.initialMs);
  const max = Math.max(0, policy.maxMs);
  // Guard 0 * Infinity (= NaN) when a huge attempt number overflows the power.
  if (initial === 0) return 0;
  const grown = initial * Math.pow(Math.max(1, policy.factor), attempt - 1);
  return Math.floor(Math.min(max, grown));
}

/**
 * The delay, in whole milliseconds, before the next attempt after attempt `attempt` failed.
 *
 * Exponential and capped: `min(maxMs, initialMs * factor^(attempt-1))`, then jittered by taking off
 * a random share of up to `jitter` of it, so the result lies in `[ceiling * (1 - jitter), ceiling]`.
 *
 * Why the jitter only subtracts: symmetric jitter (`±jitter`) would have to be clamped at `maxMs`,
 * and clamping puts every retry that reached the cap on exactly the cap, so a herd of steps that
 * failed together would retry together once they got there, which is the very thing jitter is for.
 * Subtracting keeps `maxMs` a hard bound with the spread intact, never goes below zero, and with
 * `jitter: 1` it is the well-known "full jitter" (a uniform delay between zero and the ceiling).
 *
 * @param attempt - the 1-based number of the attempt that failed (1 after the first failure)
 * @param random - a source of numbers in `[0, 1)`; pass {@link seededRandom} for determinism
 * @throws ValidationError when `attempt` is not a positive integer
 */
export function backoffDelay(
  policy: BackoffPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = backoffCeiling(policy, attempt);
  const jitter = Math.min(1, Math.max(0, policy.jitter));
  if (jitter === 0 || ceiling === 0) return ceiling;
  // Clamp a misbehaving source so the result stays inside the documented range.
  const r = Math.min(1, Math.max(0, random() || 0));
  return Math.floor(ceiling * (1 - jitter * r));
}

function checkAttempt(attempt: number): void {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new ValidationError('backoff', [
      {
        path: 'attempt',
        message: `expected the 1-based number of the failed attempt, got ${attempt}`,
      },
    ]);
  }
}
