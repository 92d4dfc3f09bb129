import { isCycloneError } from '@cyclone/core';
import { classifyDatabaseError, DatabaseFailure } from '@cyclone/store-postgres';

/**
 * Whether a database error says nothing about the write itself: the connection failed or was
 * lost, the server is restarting, or the transaction hit a conflict (the store's
 * {@link classifyDatabaseError}), so the same write may succeed on a new connection. Every fenced
 * write of the worker is safe to repeat: one that had committed before the connection dropped is
 * fenced out the second time.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  const failure = classifyDatabaseError(error);
  return failure === DatabaseFailure.Connection || failure === DatabaseFailure.Conflict;
}

/** Options of {@link retryTransient}. */
export interface RetryTransientOptions {
  /** How long to keep trying after the first attempt failed, in milliseconds. */
  readonly budgetMs: number;
  /** Told of each failed attempt that will be retried. */
  readonly onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

const FirstDelayMs = 50;
const MaxDelayMs = 1_000;

/**
 * Runs `write`, and runs it again with exponential backoff (50 ms doubling to 1 s) while it fails
 * with a transient database error and `budgetMs` has not run out. Any other error, or the last
 * transient one, is thrown.
 */
export async function retryTransient<T>(
  write: () => Promise<T>,
  options: RetryTransientOptions,
): Promise<T> {
  const deadline = performance.now() + options.budgetMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      const delayMs = Math.min(MaxDelayMs, FirstDelayMs * 2 ** (attempt - 1));
      if (!isTransientDatabaseError(error) || performance.now() + delayMs > deadline) throw error;
      options.onRetry?.(error, attempt, delayMs);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

/**
 * The driver's error inside a store error: the store wraps every database error it does not
 * recognise in `DatabaseQueryError` (code `DATABASE_QUERY_FAILED`) with the driver's error as
 * `cause`, whose SQLSTATE and message say what Postgres refused.
 */
export function driverErrorOf(error: unknown): unknown {
  if (isCycloneError(error, 'DATABASE_QUERY_FAILED') && error.cause !== undefined) {
    return error.cause;
  }
  return error;
}
