/** Waiting for a condition with a deadline, instead of sleeping for a guessed time. */
import { eventually as baseEventually } from '@cyclone/test-db';

/** {@link baseEventually} with the scenarios' deadline (30 s) and pace (50 ms). */
export function eventually<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<T> {
  return baseEventually(probe, what, timeoutMs, everyMs);
}

/** Resolves after `ms`: for pacing a fault (a kill at a random offset), never for synchronising. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A random whole number in [min, max]. */
export function randomBetween(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}
