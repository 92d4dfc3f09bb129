import pg from 'pg';
import { ValidationError } from '@cyclone/core';
import type { StoreLogger } from './contract/store-logger.js';
import { PostgresStore } from './store.js';
import { assertPostgresUrl } from './db/database-url.js';

/** How long an owned pool waits for a connection by default. */
const DEFAULT_CONNECTION_TIMEOUT_MS = 10_000;

/** How a Cyclone process reaches Postgres: its own pool from a URL, or a pool the application owns. */
export interface StoreConnectionOptions {
  /** A Postgres URL; the connection then owns (and closes) its pool. */
  readonly connectionString?: string;
  /** Or a pool the application owns; it is never ended by Cyclone. */
  readonly pool?: pg.Pool;
  /**
   * Postgres schema of Cyclone's tables.
   * @defaultValue `'public'`
   */
  readonly schema?: string;
  /**
   * Most connections of an owned pool.
   * @defaultValue 10 (pg's default)
   */
  readonly maxConnections?: number;
  /**
   * How long an owned pool waits for a new connection before the operation fails with
   * `DatabaseUnreachableError` (instead of hanging on an unreachable host).
   * @defaultValue 10 000 ms
   */
  readonly connectionTimeoutMs?: number;
  /**
   * Told when an idle connection of an owned pool fails (a server restart, a failover,
   * `pg_terminate_backend`). The pool has already dropped that connection and opens a new one on
   * demand; without a listener pg would crash the process.
   */
  readonly onIdleConnectionError?: (error: Error) => void;
  /**
   * Where the store reports a follow-up that failed after its operation committed (see
   * the `logger` option of {@link PostgresStore}).
   * @defaultValue a process warning
   */
  readonly logger?: StoreLogger;
}

/** A store and what closing it takes. */
export interface StoreConnection {
  readonly store: PostgresStore;
  /** The pool the store runs on (the application's, or the one opened from the URL). */
  readonly pool: pg.Pool;
  /** Ends the pool if this connection opened it; a pool the application gave stays open. */
  readonly close: () => Promise<void>;
}

/**
 * The one wiring function of Cyclone's processes: validates how to reach Postgres, opens a pool
 * when given a URL, and returns the store over it. The client, the worker and the scheduler all
 * start here, so they handle a connection the same way.
 *
 * @param subject - what is being configured, for the error message (e.g. `'worker options'`)
 * @throws ValidationError when neither a connection string nor a pool is given
 * @throws InvalidDatabaseUrlError when the connection string is not a PostgreSQL URL
 */
export function connectStore(
  options: StoreConnectionOptions,
  subject = 'store options',
): StoreConnection {
  if (!options || (!options.pool && typeof options.connectionString !== 'string')) {
    throw new ValidationError(subject, [
      { path: 'connectionString', message: 'expected a connection string or a pg Pool (`pool`)' },
    ]);
  }
  if (!options.pool) assertPostgresUrl(options.connectionString, subject);
  const ownPool = options.pool
    ? undefined
    : new pg.Pool({
        connectionString: options.connectionString,
        connectionTimeoutMillis: options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
        ...(options.maxConnections === undefined ? {} : { max: options.maxConnections }),
      });
  const onIdleError = options.onIdleConnectionError ?? (() => undefined);
  ownPool?.on('error', onIdleError);
  const pool = options.pool ?? ownPool!;
  const store = new PostgresStore({
    pool,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.connectionString === undefined || options.pool
      ? {}
      : { connectionString: options.connectionString }),
  });
  let closing: Promise<void> | undefined;
  return {
    store,
    pool,
    close: () => (closing ??= ownPool ? ownPool.end() : Promise.resolve()),
  };
}
