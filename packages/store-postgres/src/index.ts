/**
 * `@cyclone/store-postgres`: Cyclone's PostgreSQL store. The Drizzle schema, the SQL migrations
 * and `migrate()`, and every query the client, the worker and the scheduler run.
 *
 * The Drizzle tables are a separate entry point, `@cyclone/store-postgres/schema`, so that an
 * application importing the client or the worker does not load drizzle-orm's declarations.
 *
 * @example
 * ```ts
 * import { connectStore, migrate } from '@cyclone/store-postgres';
 *
 * const { store, pool, close } = connectStore({ connectionString: process.env.CYCLONE_DATABASE_URL! });
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
} from './migration/migrate.js';
export { PostgresStore } from './store.js';
export type { PostgresStoreOptions } from './store-options.js';
export type * from './contract/index.js';
export { connectStore, type StoreConnection, type StoreConnectionOptions } from './connect.js';
export {
  migrationStatus,
  type MigrationStatus,
  type MigrationState,
  type MigrationStatusOptions,
} from './migration/migration-status.js';
export { runOfDefinition, runOfJob } from './tables/runs/new-runs.js';
export { newJobs } from './tables/runs/new-jobs.js';
export { Notifier, NotifierHealthCheckMs, type NotifierOptions } from './db/notifier.js';
export { Channels } from './db/channels.js';
export { PoolerModes, type PoolerMode } from './db/pooler.js';
export { uuidv7, isUuid } from './db/ids.js';
export { MetricsDefaults } from './reads/collect-metrics.js';
export { OverviewDefaults, StatsMinutesKeptMs } from './reads/overview.js';
export { tablesIn, type TableLayout, type Tables } from './db/tables.js';
export { withTransaction, isRetryableTransactionError } from './db/transaction.js';
export {
  classifyDatabaseError,
  connectionFailureReason,
  DatabaseFailure,
} from './db/driver-errors.js';
export type { ChildInputCheck, Queryable } from './db/sql-runner.js';
