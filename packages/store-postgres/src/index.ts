/**
 * `@cyclone/store-postgres`: Cyclone's PostgreSQL store. The Drizzle schema, the SQL migrations
 * and `migrate()`, and every query the client, the worker and the scheduler run.
 *
 * The Drizzle tables are a separate entry point, `@cyclone/store-postgres/schema`, so that an
 * application importing the client or the worker does not load drizzle-orm's declarations.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { migrate, PostgresStore } from '@cyclone/store-postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.CYCLONE_DATABASE_URL });
 * await migrate({ pool });
 * const store = new PostgresStore({ pool });
 * console.log(await store.listRuns({ states: ['failed'] }));
 * ```
 *
 * @packageDocumentation
 */
export {
  migrate,
  defaultMigrationsFolder,
  type MigrateOptions,
  type MigrateResult,
} from './migrate.js';
export {
  PostgresStore,
  type PostgresStoreOptions,
  type ClaimRequest,
  type ClaimedStep,
  type Completion,
  type Failure,
  type FailureOutcome,
  type RunQuery,
  type RunPage,
} from './store.js';
export {
  runOfDefinition,
  runOfJob,
  type NewRun,
  type NewStep,
  type NewRunOptions,
  type NewJobOptions,
} from './submission.js';
export { Notifier, type NotifierOptions } from './notifier.js';
export { Channels } from './sql/channels.js';
export { uuidv7, isUuid } from './ids.js';
export { tablesIn, type Tables } from './tables.js';
export { withTransaction, isRetryableTransactionError } from './transaction.js';
export type { Queryable } from './executor.js';
