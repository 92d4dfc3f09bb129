import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { CycloneError, toMilliseconds, type MetricsUnavailableError } from '@cyclone/core';
import type { Scheduler } from '@cyclone/scheduler';
import { embeddedScheduler } from './embedded-scheduler.js';
import {
  connectStore,
  type MetricsReads,
  type PoolerMode,
  type StoreNotifications,
  type WorkerStore,
} from '@cyclone/store-postgres';
import { WorkerStartError } from './errors.js';
import { Executor } from './executor.js';
import type { InFlight } from './in-flight.js';
import { LeaseKeeper } from './lease-keeper.js';
import { loggableError } from './log-error.js';
import { setUpWorkerMetrics, WorkerMetrics } from './metrics.js';
import { observedStore } from './observed-store.js';
import type { StopOptions, WorkerOptions } from './options.js';
import { Producer } from './producer.js';
import { childInputCheckOf, OutputCheck } from './output-check.js';
import { Recorder } from './recorder.js';
import { handleProcessSignals } from './signal-handler.js';
import { bothStepMetrics, MinuteCounts } from './minute-counts.js';
import { StatsFlusher } from './stats-flusher.js';
import { resolveWorkerConfig, type WorkerConfig } from './worker-config.js';

export { FastHandlerMs } from './producer.js';

/**
 * How often a worker refreshes its row in `cyclone_workers`. The scheduler treats a worker unseen
 * for several of these as gone (its `workerLiveness` option).
 */
export const WorkerRegistrationRefreshMs = 5_000;

/**
 * How long, after the shutdown timeout aborted the handlers, the worker waits for them to settle.
 * A step whose handler settled by then is released; the others are left to their leases.
 */
export const ShutdownAbortGraceMs = 1_000;

/**
 * Executes steps: claims available steps of its handlers' kinds, runs them with leases renewed
 * by heartbeats, and records each outcome fenced by its claim. Run as many workers, on as many
 * machines, as the database can serve.
 *
 * Handlers should honour `ctx.signal`. At `stop({ timeout })` the handlers still running after the
 * timeout are aborted; a step is released (available again, no attempt charged) only once its
 * handler has settled. A handler that ignores the abort keeps its step until the step's lease
 * runs out (it is no longer renewed), so no other worker runs the step while it may still run.
 *
 * @example
 * ```ts
 * import { Worker } from '@cyclone/worker';
 *
 * const worker = new Worker({
 *   connectionString: process.env.CYCLONE_DATABASE_URL!,
 *   handlers: { 'email.send': async (ctx) => ({ sent: true, to: (ctx.input as { to: string }).to }) },
 *   concurrency: 10,
 *   handleSignals: { timeout: '10s' }, // SIGTERM / SIGINT stop it gracefully
 * });
 * await worker.start();
 * ```
 */
export class Worker {
  /** This worker's id, as recorded on its claims. */
  readonly id: string;
  readonly store: WorkerStore & StoreNotifications & MetricsReads;
  private readonly closeConnection: () => Promise<void>;
  /** What stands between the worker and PostgreSQL (the `pooler` option). */
  private readonly pooler: PoolerMode;
  private readonly logger: Logger;
  private readonly config: WorkerConfig;
  private readonly producer: Producer;
  private readonly executor: Executor;
  private readonly recorder: Recorder;
  private readonly leaseKeeper: LeaseKeeper;
  private readonly statsFlusher: StatsFlusher;
  private registrationTimer: NodeJS.Timeout | undefined;
  private state: 'idle' | 'starting' | 'running' | 'stopping' | 'stopped' = 'idle';
  private stopping: Promise<void> | undefined;
  /** Ends the shutdown's wait for handlers at once (a second signal). */
  private forceNow: (() => void) | undefined;
  private forced = false;
  private uninstallSignals: (() => void) | undefined;
  private readonly scheduler: Scheduler | undefined;
  /** The metrics, or why there are none (prom-client is not installed). */
  private readonly metricsOrError: WorkerMetrics | MetricsUnavailableError;

  constructor(options: WorkerOptions) {
    this.config = resolveWorkerConfig(options);
    const config = this.config;
    this.id = options.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.logger = (options.logger ?? pino({ name: 'cyclone-worker' })).child({ worker: this.id });
    const connection = connectStore(
      {
        ...options,
        maxConnections: 4,
        // Handlers' transactions (ctx.transaction) hold a connection while their work runs: a
        // pool of their own, at most one a slot, opened only as they are used.
        transactionConnections: config.concurrency,
        // A settlement that fails after its operation committed is reported here.
        logger: this.logger,
        // Child runs this worker's settlements start are checked against their input schemas.
        ...childInputCheckOf(options.workflows ?? []),
        // pg reports an idle connection's failure (a Postgres restart or failover,
        // pg_terminate_backend) on its pool, which has already dropped it and opens a new one when
        // needed, so logging is all there is to do.
        onIdleConnectionError: (error) =>
          this.logger.warn(
            { error: loggableError(error) },
            'an idle database connection was lost; the pool replaces it',
          ),
      },
      'worker options',
    );
    this.store = connection.store;
    this.pooler = connection.store.pooler;
    this.closeConnection = connection.close;
    this.metricsOrError = setUpWorkerMetrics({
      registry: options.metricsRegistry,
      kinds: config.kinds,
      store: this.store,
      logger: this.logger,
    });
    const metrics = this.metricsOrError instanceof WorkerMetrics ? this.metricsOrError : undefined;
    // The overview's per-minute counts see what the metrics see, and are written in batches.
    const minuteCounts = new MinuteCounts();
    this.statsFlusher = new StatsFlusher(this.store, minuteCounts, this.logger);
    const stepMetrics = metrics ? bothStepMetrics(minuteCounts, metrics) : minuteCounts;
    // Claims and completions are measured and traced by wrapping the store they go through.
    const store = observedStore(this.store, stepMetrics);
    this.scheduler = embeddedScheduler(options, this.logger, metrics?.registry);
    this.recorder = new Recorder(store, config, this.logger, stepMetrics);
    const outputCheck = new OutputCheck(config.outputChecks, config.jobOutputChecks);
    this.executor = new Executor({
      metrics: stepMetrics,
      handlers: config.handlers,
      outputCheck,
      logger: this.logger,
      recorder: this.recorder,
      outcome: config,
      transactions: { store, outcome: config, metrics: stepMetrics, outputCheck },
      onHandlerTime: (ms) => this.producer.recordHandlerTime(ms),
      onSlotFreed: () => this.producer.wake(),
      onOutcomeWritten: () => this.producer.outcomeWritten(),
    });
    const executor = this.executor;
    this.producer = new Producer(
      store,
      { ...config, workerId: this.id },
      {
        get running() {
          return executor.inFlight.size;
        },
        get unfinished() {
          return executor.unfinished;
        },
        launch: (step) => executor.launch(step),
      },
      this.logger,
    );
    this.leaseKeeper = new LeaseKeeper(
      this.store,
      this.executor.inFlight,
      this.producer,
      config,
      this.logger,
    );
  }

  /** Steps this worker is executing now. */
  get activeSteps(): number {
    return this.executor.inFlight.size;
  }

  /**
   * The worker's metrics in the Prometheus text format: steps claimed, completed, failed (by kind
   * and outcome), snoozed and dropped; handler, claim and queue-wait histograms; and, read from the
   * database now, the available and ready steps and the oldest ready age of its kinds and the DLQ
   * size by reason (plus the embedded scheduler's leader gauge with `scheduler: true`). With
   * `metricsRegistry`, the text of that whole registry. Serve it on your `/metrics` endpoint.
   *
   * @throws MetricsUnavailableError when prom-client (an optional peer dependency) is not installed
   */
  async metrics(): Promise<string> {
    if (!(this.metricsOrError instanceof WorkerMetrics)) throw this.metricsOrError;
    return this.metricsOrError.text();
  }

  /** Steps claimed ahead that wait for a free slot. */
  get bufferedSteps(): number {
    return this.producer.steps.length;
  }

  /**
   * Starts listening for work and claiming it. Resolves once the worker is listening.
   *
   * @throws WorkerStartError (or the store's own typed error) when the database is unreachable or
   *   not migrated, or the store's error when listening or registering failed; nothing was
   *   claimed or left registered, and the worker may be started again
   */
  async start(): Promise<void> {
    if (this.state !== 'idle')
      throw new Error(`worker ${this.id} cannot start: it is ${this.state}`);
    this.state = 'starting';
    let listening: boolean;
    try {
      listening = await this.prepare();
    } catch (error) {
      this.state = 'idle';
      throw error;
    }
    this.registrationTimer = setInterval(() => {
      this.register().catch((error: unknown) => {
        this.logger.warn(
          { error: loggableError(error) },
          'refreshing the worker registration failed',
        );
      });
    }, WorkerRegistrationRefreshMs);
    this.state = 'running';
    this.leaseKeeper.start();
    this.statsFlusher.start();
    if (this.config.signalStopMs !== undefined) {
      const timeout = this.config.signalStopMs;
      this.uninstallSignals = handleProcessSignals(
        { stop: () => this.stop({ timeout }), force: () => this.force() },
        this.logger,
      );
    }
    this.logger.info(
      {
        kinds: this.config.kinds,
        concurrency: this.config.concurrency,
        pooler: this.pooler,
        wakeUps: listening ? 'listen' : 'poll',
      },
      'worker started',
    );
    if (!listening) {
      this.logger.info(
        { pollIntervalMs: this.config.pollMs, heartbeatIntervalMs: this.config.heartbeatMs },
        'no LISTEN connection (a transaction-mode pooler without listenConnectionString): ' +
          'polling for work every pollInterval; a cancelled step learns of it at its next heartbeat',
      );
    }
    this.producer.start();
    await this.scheduler?.start();
  }

  /**
   * Stops claiming, releases the steps claimed ahead, lets in-flight handlers finish for up to
   * `timeout`, then aborts the rest. A step whose handler settles within
   * {@link ShutdownAbortGraceMs} of the abort is released (available again, no attempt charged);
   * one whose handler ignores the abort is left to its lease, no longer renewed. Then it waits for
   * the outcomes being written and closes what it opened. A second call returns the same promise.
   */
  stop(options: StopOptions = {}): Promise<void> {
    return (this.stopping ??= this.shutdown(toMilliseconds(options.timeout ?? '10s', 'timeout')));
  }

  private async shutdown(timeoutMs: number): Promise<void> {
    const wasRunning = this.state === 'running';
    this.state = 'stopping';
    await this.scheduler?.stop();
    await this.producer.stop();
    if (wasRunning && !(await this.handlersFinish(timeoutMs))) await this.abortInFlight();
    this.leaseKeeper.stop();
    clearInterval(this.registrationTimer);
    await this.recorder.idle();
    await this.statsFlusher.stop();
    await this.store.deregisterWorker(this.id).catch((error: unknown) => {
      this.logger.warn(
        { error: loggableError(error) },
        'removing the worker registration failed; it expires by itself',
      );
    });
    this.uninstallSignals?.();
    this.state = 'stopped';
    await this.closeConnection();
    this.logger.info('worker stopped');
  }

  /**
   * Checks the schema and opens the connection that listens for wake-ups side by side (opening a
   * connection is most of what a start costs: tens of milliseconds on a busy server), then
   * registers the worker and stores its workflows on the connection the check used. Resolves with
   * whether the worker listens; on a failure it closes what it opened, removes its registration,
   * and rejects.
   */
  private async prepare(): Promise<boolean> {
    const [schema, listening] = await Promise.allSettled([
      this.store.checkSchema(),
      this.producer.listen((stepIds) => this.leaseKeeper.abortEnded(stepIds)),
    ]);
    let registered = false;
    try {
      if (schema.status === 'rejected') {
        const error: unknown = schema.reason;
        // The store's own typed error says it best; a raw database or socket error gets wrapped.
        throw error instanceof CycloneError
          ? error
          : new WorkerStartError(this.id, { cause: error });
      }
      if (listening.status === 'rejected') throw listening.reason;
      await this.register();
      registered = true;
      // Child nodes (and schedules) start workflows by name, in whichever process settles them.
      await this.store.registerWorkflows(this.config.workflows);
      return listening.value;
    } catch (error) {
      await this.producer.stop();
      if (registered) await this.store.deregisterWorker(this.id).catch(() => undefined);
      throw error;
    }
  }

  /** Registers (or refreshes) this worker, with where it runs, in `cyclone_workers`. */
  private register(): Promise<void> {
    return this.store.registerWorker(this.id, this.config.kinds, {
      host: hostname(),
      pid: process.pid,
      concurrency: this.config.concurrency,
    });
  }

  /**
   * Stops now: what a second SIGTERM does under `handleSignals`, for a process that handles its
   * own signals. It cuts the wait of a stop under way short (or starts one with no wait): the
   * handlers still running are aborted, the steps whose handlers settle within
   * {@link ShutdownAbortGraceMs} are released (available again, no attempt charged), and the
   * others are left to their leases. Resolves when the stop ends.
   */
  stopNow(): Promise<void> {
    this.force();
    return this.stop({ timeout: 0 });
  }

  /** Cuts a shutdown's wait for handlers short. */
  private force(): void {
    this.forced = true;
    this.forceNow?.();
  }

  /** Waits for every launched step to finish, up to `timeoutMs`; false when time ran out. */
  private async handlersFinish(timeoutMs: number): Promise<boolean> {
    if (this.forced) return false;
    let timer: NodeJS.Timeout | undefined;
    const cut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
      this.forceNow = () => resolve(false);
    });
    const finished = await Promise.race([this.executor.idle().then(() => true), cut]);
    clearTimeout(timer);
    return finished;
  }

  /**
   * Aborts the handlers still running, releases the steps whose handlers then settle, and leaves
   * the others to their leases: releasing a step whose handler still runs would let another
   * worker run it at the same time.
   */
  private async abortInFlight(): Promise<void> {
    const entries = this.executor.abortAll(new Error('worker shutdown timeout'));
    if (entries.length === 0) return;
    this.logger.warn({ steps: entries.length }, 'shutdown timeout: aborting in-flight handlers');
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ShutdownAbortGraceMs);
    });
    const settled = new Set<InFlight>();
    await Promise.race([
      Promise.all(entries.map((e) => e.handlerSettled.then(() => settled.add(e)))),
      grace,
    ]);
    clearTimeout(timer);
    for (const entry of entries) if (!settled.has(entry)) this.abandon(entry);
    await Promise.all(entries.filter((e) => settled.has(e)).map((e) => this.release(e)));
  }

  private async release(entry: InFlight): Promise<void> {
    try {
      await this.store.release(entry.step.id, entry.step.claimToken);
    } catch (error) {
      this.logger.error(
        { error: loggableError(error), stepId: entry.step.id },
        'release failed; the lease will expire',
      );
    }
    this.executor.forget(entry);
  }

  private abandon(entry: InFlight): void {
    entry.lost = 'abandoned';
    this.executor.forget(entry);
    this.logger.warn(
      { stepId: entry.step.id, runId: entry.step.runId },
      'the handler ignored its abort signal; its step is left to its lease',
    );
  }
}
