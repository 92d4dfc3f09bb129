import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { pino, type Logger } from 'pino';
import { toMilliseconds, type Duration, type WorkflowDefinition } from '@cyclone/core';
import { connectStore, type MaintenanceStore } from '@cyclone/store-postgres';

/** Options of a {@link Scheduler}. */
export interface SchedulerOptions {
  readonly connectionString?: string;
  readonly pool?: pg.Pool;
  /** @defaultValue `'public'` */
  readonly schema?: string;
  /** Workflows the scheduler may start (schedules, child runs). */
  readonly workflows?: readonly WorkflowDefinition[];
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
  /** @defaultValue `pino({ name: 'cyclone-scheduler' })` */
  readonly logger?: Logger;
  /** @defaultValue `<hostname>:<pid>:<random>` */
  readonly id?: string;
}

/** The name of the leader lease the scheduler replicas share. */
const LEADER_LEASE = 'scheduler';

/**
 * Runs Cyclone's time-driven scanners: the recovery sweep that reclaims expired leases, and the
 * sweep that fails steps whose kind no live worker handles (more scanners arrive with timers,
 * waits, deadlines and cron). Run one or more replicas: they elect
 * one leader through a lease in the database, and only the leader scans.
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
  private readonly closeConnection: () => Promise<void>;
  private readonly logger: Logger;
  private readonly intervalMs: number;
  private readonly unservedGraceMs: number | false;
  private readonly livenessMs: number;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private leading = false;
  private stopped = false;

  constructor(options: SchedulerOptions) {
    this.id = options.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.logger = (options.logger ?? pino({ name: 'cyclone-scheduler' })).child({
      scheduler: this.id,
    });
    const connection = connectStore(
      {
        ...options,
        maxConnections: 2,
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
    this.closeConnection = connection.close;
    this.intervalMs = toMilliseconds(options.interval ?? '1s', 'interval');
    this.unservedGraceMs =
      options.unservedKindGrace === false
        ? false
        : toMilliseconds(options.unservedKindGrace ?? '5m', 'unservedKindGrace');
    this.livenessMs = toMilliseconds(options.workerLiveness ?? '30s', 'workerLiveness');
  }

  /** Whether this replica is the leader now. */
  get isLeader(): boolean {
    return this.leading;
  }

  /** Starts electing and scanning; the first tick runs at once. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.tick();
    this.timer = setInterval(() => {
      this.ticking ??= this.tick().finally(() => {
        this.ticking = undefined;
      });
    }, this.intervalMs);
  }

  /** Runs one election and, when leading, every scanner once. Exposed for tests and tools. */
  async tick(): Promise<void> {
    try {
      const leading = await this.store.attemptLeadership(
        LEADER_LEASE,
        this.id,
        this.intervalMs * 5,
      );
      if (leading !== this.leading)
        this.logger.info({ leading }, leading ? 'became leader' : 'lost leadership');
      this.leading = leading;
      if (!leading || this.stopped) return;
      const reclaimed = await this.store.reclaimExpired();
      if (reclaimed > 0) this.logger.info({ reclaimed }, 'reclaimed steps with expired leases');
      if (this.unservedGraceMs !== false) {
        const failed = await this.store.failUnservedSteps({
          claimant: `scheduler:${this.id}`,
          livenessMs: this.livenessMs,
          graceMs: this.unservedGraceMs,
        });
        if (failed > 0)
          this.logger.warn({ failed }, 'discarded steps whose kind no live worker handles');
      }
    } catch (error) {
      this.logger.error({ err: error }, 'scheduler tick failed; retrying at the next interval');
    }
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
