import pg from 'pg';
import { DatabaseUnreachableError, redactUrl } from '@cyclone/core';
import {
  classifyDatabaseError,
  connectionFailureReason,
  DatabaseFailure,
} from '@cyclone/store-postgres';

/** How long a connection attempt may take before the database counts as unreachable. */
export const ConnectTimeoutMs = 10_000;

/** A pool on `url` that gives up connecting after {@link ConnectTimeoutMs} instead of hanging. */
export function openPool(url: string, max = 4): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: ConnectTimeoutMs,
  });
  pool.on('error', () => undefined); // an idle connection lost: the pool replaces it
  return pool;
}

/**
 * Runs `work`, turning a failed connection into a {@link DatabaseUnreachableError} naming `url`
 * (its password hidden): the database the user gave, whatever the store called it.
 */
export async function reachingDatabase<T>(url: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (classifyDatabaseError(error) !== DatabaseFailure.Connection) throw error;
    throw new DatabaseUnreachableError(redactUrl(url), connectionFailureReason(error), {
      cause: error,
    });
  }
}
