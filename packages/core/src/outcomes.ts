import { type Duration, toMilliseconds } from './duration.js';
import { thrownMessage, thrownStack } from './error-text.js';

/**
 * Thrown by a handler (via {@link permanent}) to discard its step now, with error kind
 * `permanent`: no further attempt is made.
 */
export class PermanentError extends Error {
  readonly code = 'PERMANENT';
  constructor(cause: unknown) {
    // Anything may be thrown (a null-prototype object, an error whose message getter throws):
    // reading it must not throw, or `permanent(x)` would turn into an ordinary retryable error.
    super(thrownMessage(cause), { cause });
    this.name = 'PermanentError';
    const stack = thrownStack(cause);
    if (stack) this.stack = stack;
  }
}

/**
 * Thrown by a handler (via {@link snooze}) to run the same attempt again after a delay. The attempt
 * is not charged; the step records error kind `snooze`.
 */
export class SnoozeError extends Error {
  readonly code = 'SNOOZE';
  /** How long to wait before the step is claimable again, in milliseconds. */
  readonly delayMs: number;
  constructor(delay: Duration) {
    const delayMs = toMilliseconds(delay, 'snooze delay');
    super(`snoozed for ${delayMs}ms`);
    this.name = 'SnoozeError';
    this.delayMs = delayMs;
  }
}

/**
 * Marks an error as permanent: `throw permanent(err)` discards the step at once.
 *
 * @example
 * ```ts
 * if (response.status === 404) throw permanent(new Error('customer does not exist'));
 * ```
 */
export function permanent(err: unknown): PermanentError {
  return err instanceof PermanentError ? err : new PermanentError(err);
}

/**
 * Delays the step without charging an attempt: `throw snooze('30s')`.
 */
export function snooze(delay: Duration): SnoozeError {
  return new SnoozeError(delay);
}

/** Whether a thrown value asks for a permanent discard (works across installed copies). */
export function isPermanentError(value: unknown): value is PermanentError {
  return (
    value instanceof PermanentError ||
    (value instanceof Error && (value as { code?: unknown }).code === 'PERMANENT')
  );
}

/** Whether a thrown value asks for a snooze (works across installed copies). */
export function isSnoozeError(value: unknown): value is SnoozeError {
  return (
    value instanceof SnoozeError ||
    (value instanceof Error &&
      (value as { code?: unknown }).code === 'SNOOZE' &&
      typeof (value as { delayMs?: unknown }).delayMs === 'number')
  );
}
