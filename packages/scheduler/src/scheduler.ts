import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { MetricsUnavailableError, toMilliseconds, type WorkflowDefinition } from '@cyclone/core';
import {
  connectStore,
  StatsMinutesKeptMs,
  type MaintenanceStore,
  type PoolerMode,
} from '@cyclone/store-postgres';
import { SchedulerMetrics } from './metrics.js';
import type { SchedulerOptions } from './options.js';
import { loadPromClient } from './load-prom-client.js';
import { DueWaitsScanner } from './scanners/due-waits.js';
import { ReclaimExpiredLeasesScanner } from './scanners/reclaim-expired-leases.js';
import { ExpiredCacheScanner } from './scanners/expired-cache.js';
import { RetentionScanner } from './scanners/retention.js';
import { EventPartitionsScanner } from './scanners/event-partitions.js';
import { StatsRetentionScanner } from './scanners/stats-retention.js';
import { RunDeadlinesScanner } from './scanners/run-deadlines.js';
import type { Scanner } from './scanners/scanner.js';
import { SchedulesScanner } from './scanners/schedules.js';
import { SettlePendingScanner } from './scanners/settle-pending.js';
import { UnservedKindsScanner } from './scanners/unserved-kinds.js';

export type { SchedulerOptions } from './options.js';
export type { MetricsRegistry } from './metrics-registry.js';

/** The name of the leader lease the scheduler replicas share. */
const LEADER_LEASE = 'scheduler';

/**
 * Runs Cyclone's time-driven scanners (see `scanners/`): the recovery sweep that reclaims expired
 * leases, the sweep that fails steps whose kind no live worker handles, and the one that settles
 * runs left in the settlement outbox, the one that fires due timers and lapses max waits, run
 * deadlines, retention, and the one that fires cron schedules. Run one
 * or more replicas: they elect one leader through a lease in the database, and only the leader
 * scans.
 *
 * @example
 * ```ts
 * import { Scheduler } from '@cyclone/scheduler';
 * const scheduler = new Scheduler({ connectionString: process.env.CYCLONE_DATABASE_URL!, interval: '1s' });
 * await scheduler.start();
 * ```
 */
export class Scheduler {
  readonly id: string;
  readonly store: MaintenanceStore;
  /** The scanners the leader runs, in order. */
  readonly scanners: readonly Scanner[];
  private readonly closeConnection: () => Promise<void>;
  /** What stands between the scheduler and PostgreSQL (the `pooler` option). */
  private readonly pooler: PoolerMode;
  private readonly logger: Logger;
  private readonly intervalMs: number;
  private readonly workflows: readonly WorkflowDefinition[];
  private readonly lastRun = new Map<Scanner, number>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private leading = false;
  private stopped = false;
  /** The metrics, or why there are none (prom-client is not installed). */
  private readonly metricsOrError: SchedulerMetrics | MetricsUnavailableError;

  constructor(options: SchedulerOptions) {
    this.id = options.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.logger = (options.logger ?? pino({ name: 'cyclone-scheduler' })).child({
      scheduler: this.id,
    });
    const connection = connectStore(
      {
        ...options,
        maxConnections: 2,
        // A settlement that fails after its operation committed is reported here.
        logger: this.logger,
        // An idle connection's failure is reported on the pool, which replaces the connection.
        onIdleConnectionError: (error) =>
          this.logger.warn(
            { err: error },
            'an idle database connection was lost; the pool replaces it',
          ),
      },
      'scheduler options',
    );
    this.store = connection.store;
    this.pooler = connection.store.pooler;
    this.closeConnection = connection.close;
    this.intervalMs = toMilliseconds(options.interval ?? '1s', 'interval');
    this.workflows = options.workflows ?? [];
    this.scanners = this.buildScanners(options);
    this.metricsOrError = this.buildMetrics(options);
  }

  /**
   * With prom-client installed, metrics are kept from the start; without it they are not, and
   * only asking for them (`metrics()`, or `metricsRegistry`, which throws here) says so.
   */
  private buildMetrics(options: SchedulerOptions): SchedulerMetrics | MetricsUnavailableError {
    let prom;
    try {
      prom = loadPromClient('scheduler');
    } catch (error) {
      if (options.metricsRegistry !== undefined || !(error instanceof MetricsUnavailableError))
        throw error;
      return error;
    }
    return new SchedulerMetrics({
      prom,
      registry: options.metricsRegistry,
      isLeader: () => this.leading,
      scanners: this.scanners.map((s) => s.name),
    });
  }

  /**
   * The scheduler's metrics in the Prometheus text format: `cyclone_scheduler_leader` (1 while
   * this replica leads) and `cyclone_scheduler_scanner_passes_total{scanner, result}`. With
   * `metricsRegistry`, the text of that whole registry.
   *
   * @throws MetricsUnavailableError when prom-client (an optional peer dependency) is not installed
   */
  async metrics(): Promise<string> {
    if (this.metricsOrError instanceof MetricsUnavailableError) throw this.metricsOrError;
    return this.metricsOrError.text();
  }

  private buildScanners(options: SchedulerOptions): Scanner[] {
    const log = (name: string) => this.logger.child({ scanner: name });
    const scanners: Scanner[] = [
      new ReclaimExpiredLeasesScanner(this.store, this.intervalMs, log('reclaim-expired-leases')),
      new SettlePendingScanner(this.store, this.intervalMs, log('settle-pending')),
      new DueWaitsScanner(this.store, this.intervalMs, log('due-waits')),
      new RunDeadlinesScanner(this.store, this.intervalMs, log('run-deadlines')),
      new ExpiredCacheScanner(this.store, this.intervalMs, log('expired-cache')),
      // Minutes age by the minute: one pass a minute is enough.
      new StatsRetentionScanner(
        this.store,
        Math.max(this.intervalMs, 60_000),
        StatsMinutesKeptMs,
        log('stats-retention'),
      ),
      // Partitions are made days ahead and dropped a period late: a pass a minute is plenty.
      new EventPartitionsScanner(
        this.store,
        Math.max(this.intervalMs, 60_000),
        log('event-partitions'),
      ),
    ];
    if (options.retention !== false) {
      const retentionMs = toMilliseconds(options.retention ?? '7d', 'retention');
      scanners.push(
        new RetentionScanner(this.store, this.intervalMs, retentionMs, log('retention')),
      );
    }
    const livenessMs = toMilliseconds(options.workerLiveness ?? '30s', 'workerLiveness');
    if (options.unservedKindGrace !== false) {
      const settings = {
        claimant: `scheduler:${this.id}`,
        graceMs: toMilliseconds(options.unservedKindGrace ?? '5m', 'unservedKindGrace'),
        livenessMs,
      };
      scanners.push(
        new UnservedKindsScanner(this.store, this.intervalMs, settings, log('unserved-kinds')),
      );
    }
    scanners.push(
      new SchedulesScanner(
        this.store,
        this.intervalMs,
        LEADER_LEASE,
        options.workflows ?? [],
        log('schedules'),
        options.scheduleClock,
      ),
    );
    return scanners;
  }

  /** Whether this replica is the leader now. */
  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * Checks the database (reachable, migrated), then starts electing and scanning; the first tick
   * runs at once.
   *
   * @throws DatabaseUnreachableError or SchemaNotMigratedError when the database cannot serve it
   */
  async start(): Promise<void> {
    await this.store.checkSchema();
    // Child nodes start workflows by name, in whichever process settles them.
    await this.store.registerWorkflows(this.workflows);
    this.stopped = false;
    this.logger.info(
      { intervalMs: this.intervalMs, pooler: this.pooler },
      'scheduler started: its scanners run every interval (it holds no LISTEN connection)',
    );
    await this.tick();
    this.timer = setInterval(() => {
      this.ticking ??= this.runDue().finally(() => {
        this.ticking = undefined;
      });
    }, this.intervalMs);
  }

  /** Runs one election and, when leading, every scanner once. Exposed for tests and tools. */
  tick(): Promise<void> {
    return this.elect(() => this.scanners);
  }

  /** One loop iteration: an election, then the scanners whose interval has elapsed. */
  private runDue(): Promise<void> {
    const now = Date.now();
    return this.elect(() =>
      this.scanners.filter((s) => now - (this.lastRun.get(s) ?? 0) >= s.interval),
    );
  }

  private async elect(due: () => readonly Scanner[]): Promise<void> {
    try {
      const leading = await this.store.attemptLeadership(
        LEADER_LEASE,
        this.id,
        this.intervalMs * 5,
      );
      if (leading !== this.leading)
        this.logger.info({ leading }, leading ? 'became leader' : 'lost leadership');
      this.leading = leading;
    } catch (error) {
      this.logger.error({ err: error }, 'leader election failed; retrying at the next interval');
      return;
    }
    if (!this.leading || this.stopped) return;
    for (const scanner of due()) {
      if (this.stopped) return;
      this.lastRun.set(scanner, Date.now());
      try {
        await scanner.runOnce();
        this.scanned(scanner.name, 'ok');
      } catch (error) {
        this.scanned(scanner.name, 'error');
        this.logger.error(
          { err: error, scanner: scanner.name },
          'scanner failed; retrying at the next interval',
        );
      }
    }
  }

  private scanned(scanner: string, result: 'ok' | 'error'): void {
    if (this.metricsOrError instanceof SchedulerMetrics)
      this.metricsOrError.scanned(scanner, result);
  }

  /** Stops scanning, gives up the leadership and closes what it opened. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.ticking;
    if (this.leading)
      await this.store.resignLeadership(LEADER_LEASE, this.id).catch(() => undefined);
    this.leading = false;
    await this.closeConnection();
  }
}
