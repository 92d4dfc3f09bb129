import { isCycloneError, thrownMessage } from '@cyclone/core';

/** SQLSTATEs after which the same write can simply be tried again on a new connection. */
const TransientSqlStates = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the server is starting up
  '53300', // too_many_connections
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

/** Errors of the Node socket layer that mean the connection, not the statement, failed. */
const TransientNodeCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** What pg says when a connection ends without a SQLSTATE. */
const TransientMessage =
  /connection terminated|connection error|not queryable|timeout exceeded when trying to connect|the database system is (starting up|shutting down)/i;

/**
 * Whether a database error says nothing about the write itself: the connection was lost or the
 * server is restarting (`08xxx`, `57P01`, a reset socket, pg's "Connection terminated"), so the same
 * write may succeed on a new connection. Every fenced write of the worker is safe to repeat: one
 * that had committed before the connection dropped is fenced out the second time.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  // The store reports a lost or refused connection as its own typed error.
  if (isCycloneError(error, 'DATABASE_UNREACHABLE')) return true;
  error = driverErrorOf(error);
  let code: unknown;
  try {
    code = (error as { code?: unknown } | null | undefined)?.code;
  } catch {
    return false;
  }
  if (typeof code === 'string') {
    if (code.startsWith('08') || TransientSqlStates.has(code) || TransientNodeCodes.has(code)) {
      return true;
    }
  }
  return TransientMessage.test(thrownMessage(error));
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
