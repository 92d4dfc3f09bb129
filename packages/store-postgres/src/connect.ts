import pg from 'pg';
import { ValidationError } from '@cyclone/core';
import type { StoreLogger } from './contract/store-logger.js';
import type { ChildInputCheck } from './db/sql-runner.js';
import { PostgresStore } from './store.js';
import { assertPostgresUrl } from './db/database-url.js';
import { poolerModeOf, type PoolerMode } from './db/pooler.js';

/** How long an owned pool waits for a connection by default. */
const DEFAULT_CONNECTION_TIMEOUT_MS = 10_000;

/**
 * Most connections of the pool opened from `listenConnectionString`: each subscription holds one
 * (a worker's, a client's waits, a server's event stream, a CLI watch).
 */
const LISTEN_CONNECTIONS = 4;

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
   * What stands between Cyclone and PostgreSQL: `'transaction'` for a pooler in transaction mode
   * (PgBouncer `pool_mode = transaction`, Supavisor's transaction port, RDS Proxy), where Cyclone
   * sends no named prepared statements, keeps no session state, and LISTENs only on
   * `listenConnectionString` (it polls without one). `'none'` for a direct connection or a pooler
   * in session mode. See docs/poolers.md.
   * @defaultValue `'none'`
   */
  readonly pooler?: PoolerMode;
  /**
   * A URL to LISTEN on for wake-ups (a direct or session-mode connection), when `connectionString`
   * or `pool` goes through a transaction-mode pooler. The connection then owns a small pool on it.
   * @defaultValue none: LISTEN on the main pool, or poll with `pooler: 'transaction'`
   */
  readonly listenConnectionString?: string;
  /**
   * Most connections of an owned pool.
   * @defaultValue 10 (pg's default)
   */
  readonly maxConnections?: number;
  /**
   * With a `connectionString`: the most connections of a second owned pool, on the same URL, that
   * transactional completions take their clients from (a handler's `ctx.transaction` holds one for
   * as long as its work runs), so they never take the connections the main pool keeps for claims,
   * heartbeats and completions. A pool opens connections only when asked: none is opened until a
   * handler opens a transaction. With a `pool` of the application's, transactions use that pool.
   * @defaultValue none: transactions use the main pool
   */
  readonly transactionConnections?: number;
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
  /** See the `childInputCheck` option of {@link PostgresStore}. */
  readonly childInputCheck?: ChildInputCheck;
}

/** A store and what closing it takes. */
export interface StoreConnection {
  readonly store: PostgresStore;
  /** The pool the store runs on (the application's, or the one opened from the URL). */
  readonly pool: pg.Pool;
  /** Ends the pools this connection opened; a pool the application gave stays open. */
  readonly close: () => Promise<void>;
}

/**
 * The one wiring function of Cyclone's processes: validates how to reach Postgres, opens a pool
 * when given a URL, and returns the store over it. The client, the worker and the scheduler all
 * start here, so they handle a connection the same way.
 *
 * @param subject - what is being configured, for the error message (e.g. `'worker options'`)
 * @throws ValidationError when neither a connection string nor a pool is given, or `pooler` is
 *   not a pooler mode
 * @throws InvalidDatabaseUrlError when the connection string or the listen connection string is
 *   not a PostgreSQL URL
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
  const pooler = poolerModeOf(options.pooler, subject);
  const listenUrl = options.listenConnectionString;
  if (listenUrl !== undefined) assertPostgresUrl(listenUrl, subject, 'listenConnectionString');
  const connectionTimeoutMillis = options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS;
  const onIdleError = options.onIdleConnectionError ?? (() => undefined);
  const ownPool = options.pool
    ? undefined
    : new pg.Pool({
        connectionString: options.connectionString,
        connectionTimeoutMillis,
        ...(options.maxConnections === undefined ? {} : { max: options.maxConnections }),
      });
  ownPool?.on('error', onIdleError);
  const listenPool =
    listenUrl === undefined
      ? undefined
      : new pg.Pool({
          connectionString: listenUrl,
          connectionTimeoutMillis,
          max: LISTEN_CONNECTIONS,
        });
  listenPool?.on('error', onIdleError);
  const transactionPool =
    options.pool || options.transactionConnections === undefined
      ? undefined
      : new pg.Pool({
          connectionString: options.connectionString,
          connectionTimeoutMillis,
          max: options.transactionConnections,
        });
  transactionPool?.on('error', onIdleError);
  const pool = options.pool ?? ownPool!;
  const store = new PostgresStore({
    pool,
    pooler,
    ...(listenPool ? { listenPool, listenConnectionString: listenUrl } : {}),
    ...(transactionPool ? { transactionPool } : {}),
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.childInputCheck === undefined ? {} : { childInputCheck: options.childInputCheck }),
    ...(options.connectionString === undefined || options.pool
      ? {}
      : { connectionString: options.connectionString }),
  });
  const owned = [ownPool, listenPool, transactionPool].filter((p): p is pg.Pool => p !== undefined);
  let closing: Promise<void> | undefined;
  return {
    store,
    pool,
    close: () => (closing ??= Promise.all(owned.map((p) => p.end())).then(() => undefined)),
  };
}
