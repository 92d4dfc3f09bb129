/**
 * The store contract: what the worker, the client and the scheduler need from the database, as
 * interfaces. `PostgresStore` implements all of them; consumers depend on the interfaces and get an
 * implementation from {@link connectStore}.
 *
 * @packageDocumentation
 */
import type { WorkerStore } from './worker-store.js';
import type { RunCommands, RunReads } from './run-store.js';
import type { MaintenanceStore } from './maintenance-store.js';
import type { StoreNotifications } from './notifications.js';
import type { OperatorCommands } from './operator-store.js';
import type { ScheduleCommands } from './schedule-store.js';
import type { MetricsReads } from './metrics-reads.js';
import type { LimitCommands } from './limit-store.js';
import type { FairShareCommands } from './fair-share-store.js';
import type { OverviewReads } from './overview-reads.js';

export type * from './worker-store.js';
export type * from './new-run.js';
export type * from './queryable.js';
export type * from './store-logger.js';
export type * from './run-store.js';
export type * from './maintenance-store.js';
export type * from './notifications.js';
export type * from './operator-store.js';
export type * from './schema-check.js';
export type * from './schedule-store.js';
export type * from './metrics-reads.js';
export type * from './limit-store.js';
export type * from './fair-share-store.js';
export type * from './overview-reads.js';

/** What `@cyclone/client` uses. */
export type ClientStore = RunCommands &
  OperatorCommands &
  LimitCommands &
  FairShareCommands &
  RunReads &
  ScheduleCommands &
  MetricsReads &
  OverviewReads &
  StoreNotifications;

/** Everything a Cyclone store does. */
export type CycloneStore = WorkerStore &
  RunCommands &
  OperatorCommands &
  LimitCommands &
  FairShareCommands &
  RunReads &
  MaintenanceStore &
  ScheduleCommands &
  MetricsReads &
  OverviewReads &
  StoreNotifications;
