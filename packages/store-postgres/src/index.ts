/**
 * `@cyclone/store-postgres`: Cyclone's PostgreSQL store. The Drizzle schema, the SQL migrations
 * and `migrate()`, and every query the client, the worker and the scheduler run.
 *
 * @example
 * ```ts
 * import { connectStore, migrate } from '@cyclone/store-postgres';
 *
 * const { store, pool, close } = connectStore({ connectionString: process.env.DATABASE_URL! });
 * await migrate({ pool });
 * await store.checkSchema();
 * console.log(await store.listRuns({ states: ['failed'] }));
 * await close();
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
export { PostgresStore, type PostgresStoreOptions } from './store.js';
export type * from './contract/index.js';
export { connectStore, type StoreConnection, type StoreConnectionOptions } from './connect.js';
export {
  runOfDefinition,
  runOfJob,
  type NewRun,
  type NewStep,
  type NewRunOptions,
  type NewJobOptions,
} from './submission/new-runs.js';
export { Notifier, type NotifierOptions } from './db/notifier.js';
export { Channels } from './db/channels.js';
export { uuidv7, isUuid } from './ids.js';
export { tablesIn, type Tables } from './db/tables.js';
export { withTransaction, isRetryableTransactionError } from './db/transaction.js';
export type { Queryable } from './db/executor.js';
export type { RowOf, RunRecord, StepRecord, EventRecord } from './db/rows.js';
export * as schema from './schema/index.js';
