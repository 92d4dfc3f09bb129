import type { ChildInputCheck } from './db/sql-runner.js';
import type pg from 'pg';
import type { TableLayout } from './db/tables.js';
import type { StoreLogger } from './contract/store-logger.js';
import type { PoolerMode } from './db/pooler.js';

/** Options of a {@link PostgresStore}. */
export interface PostgresStoreOptions {
  /** The pool every query runs on; the store never ends a pool it was given. */
  readonly pool: pg.Pool;
  /**
   * Postgres schema of Cyclone's tables.
   * @defaultValue `'public'`
   */
  readonly schema?: string;
  /** The URL the pool was opened from, named (without its password) in connection errors. */
  readonly connectionString?: string;
  /**
   * What stands between the pool and PostgreSQL (see {@link PoolerMode}). With `'transaction'`
   * statements are sent unnamed and `subscribe` LISTENs only on `listenPool`.
   * @defaultValue `'none'`
   */
  readonly pooler?: PoolerMode;
  /**
   * The pool `subscribe` takes its LISTEN connections from: a direct or session-mode connection
   * when `pool` goes through a transaction-mode pooler. The store never ends it.
   * @defaultValue `pool`, or none (polling) with `pooler: 'transaction'`
   */
  readonly listenPool?: pg.Pool;
  /**
   * The pool transactional completions (`completeInTransaction`, a handler's `ctx.transaction`)
   * take their clients from. Each holds a connection for as long as the handler's work runs, so a
   * pool of their own keeps them from starving the short statements of claims, heartbeats and
   * completions. The store never ends it.
   * @defaultValue `pool`
   */
  readonly transactionPool?: pg.Pool;
  /** The URL `listenPool` was opened from, named (without its password) in its errors. */
  readonly listenConnectionString?: string;
  /**
   * The migrations {@link PostgresStore.checkSchema} expects to find applied.
   * @defaultValue the migrations shipped with this package
   */
  readonly migrationsFolder?: string;
  /**
   * Where the store reports a follow-up that failed after its operation committed (a run left in
   * the settlement outbox for the `settle-pending` scanner), with the run's id and the error.
   * @defaultValue a process warning (`process.emitWarning`, code `CYCLONE_STORE`)
   */
  readonly logger?: StoreLogger;
  /**
   * Checks a child run's input against its workflow's input schema before a settlement of this
   * store starts it; a refusal discards the child node as `permanent` with the message as its
   * error, and no child run is written. The worker sets it from its `workflows`.
   * @defaultValue none: child inputs are not checked
   */
  readonly childInputCheck?: ChildInputCheck;
  /**
   * How runs and steps are stored (see {@link TableLayout}). No migration makes the
   * `hot-and-history` layout yet: only tests of that layout set it.
   * @defaultValue `'one-table'`
   */
  readonly tableLayout?: TableLayout;
}
