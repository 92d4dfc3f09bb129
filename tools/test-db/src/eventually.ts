/** Waiting for a condition with a deadline, instead of sleeping for a guessed time. */

/**
 * Polls `probe` every `everyMs` until it returns a value that is neither undefined nor false, and
 * returns it; fails naming `what` (with the probe's last error as the cause) once `timeoutMs` has
 * passed. A probe that throws is tried again: the condition may not hold yet.
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 10_000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: last });
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
