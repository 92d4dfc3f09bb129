import type pg from 'pg';

/** SQLSTATEs after which the whole transaction may simply be run again. */
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
 * Runs `work` in a transaction on a client of the pool, and runs it again (up to `attempts`
 * times) when Postgres aborts it for a deadlock or a serialization failure; such aborts are
 * expected when many workers settle the same run at once, and the work is safe to repeat because
 * nothing of an aborted transaction persists.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  attempts = 5,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      if (attempt < attempts && isRetryableTransactionError(error)) continue;
      throw error;
    } finally {
      client.release(broken);
    }
  }
}
