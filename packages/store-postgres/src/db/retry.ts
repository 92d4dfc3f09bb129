import { classifyDatabaseError, DatabaseFailure } from './driver-errors.js';

/**
 * Whether a database error (or the driver's error a Cyclone error wraps) means "run the
 * transaction again": a serialization failure or a deadlock (see {@link classifyDatabaseError}).
 */
export function isRetryableTransactionError(error: unknown): boolean {
  return classifyDatabaseError(error) === DatabaseFailure.Conflict;
}

/**
 * Runs `work` again (up to `attempts` times in all) when Postgres aborted it for a deadlock or a
 * serialization failure. Such aborts are expected when many workers write the same run at once,
 * and the work is safe to repeat because nothing of an aborted transaction persists. The one
 * retry loop of the store: single statements and {@link withTransaction} both use it.
 */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isRetryableTransactionError(error)) throw error;
    }
  }
}
