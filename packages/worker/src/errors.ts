import { CycloneError, type CycloneErrorOptions } from '@cyclone/core';
import { loggableError } from './log-error.js';

/** The error a step's handler fails with when its `timeout` fires: a retryable failure. */
export class StepTimeoutError extends Error {
  readonly code = 'STEP_TIMEOUT';
  constructor(readonly timeoutMs: number) {
    super(`step timed out after ${timeoutMs}ms`);
    this.name = 'StepTimeoutError';
  }
}

/**
 * `Worker.start()` found the database unreachable or Cyclone's schema missing: nothing was claimed
 * or registered. The cause is the database error.
 */
export class WorkerStartError extends CycloneError {
  readonly code = 'WORKER_START';
  constructor(
    readonly workerId: string,
    options: CycloneErrorOptions & { readonly cause: unknown },
  ) {
    const cause = loggableError(options.cause);
    super(
      `worker ${workerId} cannot start: the database is unreachable or not migrated (${cause.type}${cause.code ? ` ${cause.code}` : ''}: ${cause.message ?? ''})`,
      options,
    );
  }
}
