import {
  backoffDelay,
  DefaultBackoff,
  describeThrown,
  encodePayload,
  ErrorKind,
  isPermanentError,
  isSnoozeError,
  ValidationError,
  type BackoffPolicy,
  type ThrownDescription,
} from '@cyclone/core';

/** How a handler call ended: what it returned, or what it threw (a timeout counts as thrown). */
export type HandlerResult = { readonly ok: true; readonly output: unknown } | HandlerFailure;

/** A handler call that threw (or timed out). */
export interface HandlerFailure {
  readonly ok: false;
  readonly error: unknown;
}

/**
 * What to record for a step whose handler has settled:
 * - `complete`: the output, as the JSON text to store;
 * - `snooze`: the same attempt again after `delayMs`, no attempt charged;
 * - `retry`: a retryable failure with attempts left, next attempt after `retryDelayMs`;
 * - `discard`: a permanent failure, or a retryable one on the last attempt.
 */
export type StepOutcome =
  | { readonly type: 'complete'; readonly outputJson: string }
  | { readonly type: 'snooze'; readonly delayMs: number }
  | {
      readonly type: 'retry' | 'discard';
      readonly errorKind: typeof ErrorKind.Retryable | typeof ErrorKind.Permanent;
      /** The error as it is stored: storable text, capped (see `describeThrown`). */
      readonly error: ThrownDescription;
      readonly retryDelayMs: number;
    };

/** The parts of a claimed step the outcome depends on. */
export interface OutcomeStep {
  readonly node: string;
  /** Attempts ended before this one. */
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly backoff: BackoffPolicy | null;
}

/** Options of {@link decideOutcome}. */
export interface OutcomeOptions {
  /** Largest output in bytes of UTF-8 JSON; a larger one discards the step. */
  readonly maxOutputBytes: number;
  /** Random source of the backoff jitter. */
  readonly random: () => number;
}

/**
 * Decides what a settled handler call means for its step, without touching the database. Never
 * throws, whatever the handler returned or threw: an output that cannot be stored (not JSON, too
 * large) discards the step as `permanent`, like `throw permanent(err)`; `throw snooze(d)` snoozes;
 * any other thrown value is retryable until the attempts run out. The store makes the same
 * attempts-left decision when it records the failure; it is made here too so the caller knows.
 */
export function decideOutcome(
  result: HandlerResult,
  step: OutcomeStep,
  options: OutcomeOptions,
): StepOutcome {
  let thrown: unknown;
  if (result.ok) {
    try {
      return { type: 'complete', outputJson: encodeOutput(result.output, step, options) };
    } catch (invalid) {
      thrown = invalid;
    }
  } else {
    thrown = result.error;
  }
  const kind = classify(thrown);
  if (kind.snoozeMs !== undefined) return { type: 'snooze', delayMs: kind.snoozeMs };
  const attempt = step.attempts + 1;
  const exhausted = attempt >= step.maxAttempts;
  return {
    type: kind.permanent || exhausted ? 'discard' : 'retry',
    errorKind: kind.permanent ? ErrorKind.Permanent : ErrorKind.Retryable,
    error: describeThrown(thrown),
    retryDelayMs: backoffDelay(step.backoff ?? DefaultBackoff, attempt, options.random),
  };
}

/**
 * A handler's output as the JSON text to store (`undefined` as `null`).
 * @throws ValidationError when it is not JSON or larger than `maxOutputBytes`
 */
export function encodeOutput(
  output: unknown,
  step: Pick<OutcomeStep, 'node'>,
  options: Pick<OutcomeOptions, 'maxOutputBytes'>,
): string {
  return encodePayload(output === undefined ? null : output, {
    maxBytes: options.maxOutputBytes,
    subject: `output of node "${step.node}"`,
    path: 'output',
  });
}

/** Whether a thrown value asks for a snooze or a permanent discard; a value whose properties throw asks for neither. */
function classify(thrown: unknown): { snoozeMs?: number; permanent: boolean } {
  try {
    if (isSnoozeError(thrown)) return { snoozeMs: thrown.delayMs, permanent: false };
    // An invalid output can never be stored, so it is permanent like an explicit permanent().
    return { permanent: isPermanentError(thrown) || thrown instanceof ValidationError };
  } catch {
    return { permanent: false };
  }
}
