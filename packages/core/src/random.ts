/**
 * Seeded pseudo-random numbers, so that code which takes a `random: () => number` (such as
 * {@link backoffDelay}) can be tested deterministically and a failing property test can be replayed.
 * Not for anything that needs unpredictability: the sequence follows from the seed.
 *
 * @packageDocumentation
 */

/**
 * Returns a generator of numbers in `[0, 1)`, like `Math.random`, whose sequence depends only on
 * `seed`: two generators made with the same seed yield the same numbers, in any process.
 *
 * The algorithm is mulberry32: 32 bits of state, fast, and good enough for jitter and tests. The
 * seed is reduced to an unsigned 32-bit integer (fractions are dropped, `NaN` counts as `0`).
 *
 * @example
 * ```ts
 * const random = seededRandom(42);
 * backoffDelay(DefaultBackoff, 3, random); // the same value on every run
 * ```
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
