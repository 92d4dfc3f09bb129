import type pg from 'pg';
import type { Logger } from 'pino';
import type { Duration, WorkflowDefinition } from '@cyclone/core';
import type { PoolerMode } from '@cyclone/store-postgres';
import type { MetricsRegistry } from './metrics-registry.js';

/** Options of a `Scheduler`. */
export interface SchedulerOptions {
  readonly connectionString?: string;
  readonly pool?: pg.Pool;
  /** @defaultValue `'public'` */
  readonly schema?: string;
  /**
   * `'transaction'` when `connectionString` (or `pool`) goes through a pooler in transaction mode
   * (PgBouncer `pool_mode = transaction`, Supavisor's transaction port, RDS Proxy): statements are
   * sent unnamed and no session state is kept (leader election is a lease row, never a session
   * lock). See docs/poolers.md.
   * @defaultValue `'none'` (a direct connection, or a pooler in session mode)
   */
  readonly pooler?: PoolerMode;
  /**
   * Accepted so that one set of connection settings serves every Cyclone process (and a worker's
   * embedded scheduler). The scheduler itself LISTENs to nothing: its scanners run every
   * `interval`, pooler or not, so it opens no connection on this URL.
   */
  readonly listenConnectionString?: string;
  /** Workflows the scheduler may start (schedules, child runs). */
  readonly workflows?: readonly WorkflowDefinition[];
  /**
   * A prom-client `Registry` of the application to register the scheduler's metrics in
   * (`cyclone_scheduler_leader`, `cyclone_scheduler_scanner_passes_total`). By default the
   * scheduler keeps a registry of its own, read by `scheduler.metrics()`. Needs prom-client, an
   * optional peer dependency: given without it, the constructor throws `MetricsUnavailableError`.
   */
  readonly metricsRegistry?: MetricsRegistry;
  /**
   * How often the scanners run.
   * @defaultValue `'1s'`
   */
  readonly interval?: Duration;
  /**
   * How long an available step may wait while no live worker handles its kind before it is
   * discarded (error kind `permanent`, naming the kind), so a typo in a kind fails loudly instead
   * of hanging. `false` turns this off.
   * @defaultValue `'5m'`
   */
  readonly unservedKindGrace?: Duration | false;
  /**
   * A worker whose registration is older than this counts as gone.
   * @defaultValue `'30s'`
   */
  readonly workerLiveness?: Duration;
  /**
   * Finished runs that ended longer ago than this are deleted, with their steps, events, signals
   * and settlement markers, in bounded batches by the retention scanner. `false` keeps every run.
   * @defaultValue `'7d'`
   */
  readonly retention?: Duration | false;
  /** @defaultValue `pino({ name: 'cyclone-scheduler' })` */
  readonly logger?: Logger;
  /**
   * The clock the schedules scanner plans with, read once per pass. For tests only: production
   * uses the database's clock (`now()`), never a process's. A pass decides ticks up to this clock
   * or the leader lease's last renewal (by the database's clock), whichever is earlier, so a test
   * clock ahead of the database's decides nothing past the renewal.
   * @defaultValue the database's `now()`
   * @internal
   */
  readonly scheduleClock?: () => Promise<Date>;
  /** @defaultValue `<hostname>:<pid>:<random>` */
  readonly id?: string;
}
