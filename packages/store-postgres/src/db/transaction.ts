import type pg from 'pg';
import { retryOnConflict } from './retry.js';

export { isRetryableTransactionError } from './retry.js';

/**
 * Runs `work` in a transaction on a client of the pool, and runs it again (up to `attempts`
 * times, see {@link retryOnConflict}) when Postgres aborts it for a deadlock or a serialization
 * failure. A client whose rollback failed is discarded rather than given back to the pool.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  attempts = 5,
): Promise<T> {
  return retryOnConflict(async () => {
    const client = await pool.connect();
    // A connection that dies mid-transaction fails the running query, which is how `work` learns
    // of it; pg also emits 'error' on the client, which without a listener would crash the process.
    const onError = () => undefined;
    client.on('error', onError);
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
      throw error;
    } finally {
      // A broken client is destroyed on release and may still report its end: keep the listener.
      if (!broken) client.off('error', onError);
      client.release(broken);
    }
  }, attempts);
}
