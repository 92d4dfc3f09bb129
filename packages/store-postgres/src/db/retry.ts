/** SQLSTATEs after which the whole transaction (or single statement) may simply be run again. */
const RETRYABLE_SQLSTATES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

/** Whether a database error means "run the transaction again". */
export function isRetryableTransactionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_SQLSTATES.has(code);
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
