import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import {
  backoffDelay,
  DefaultBackoff,
  encodePayload,
  ErrorKind,
  isPermanentError,
  isSnoozeError,
  OutputBytes,
  toMilliseconds,
  ValidationError,
} from '@cyclone/core';
import { Channels, Notifier, PostgresStore, type ClaimedStep } from '@cyclone/store-postgres';
import { BatchCompleter } from './completer.js';
import type { StopOptions, WorkerOptions } from './options.js';
import type { Handler, StepContext } from './step-context.js';

interface InFlight {
  readonly step: ClaimedStep;
  readonly controller: AbortController;
  /** Set when the worker no longer holds the step: its result must not be recorded. */
  lost?: 'lease lost' | 'released';
}

/**
 * How often a worker refreshes its row in `cyclone_workers`. The scheduler treats a worker unseen
 * for several of these as gone (its `workerLiveness` option).
 */
export const WorkerRegistrationRefreshMs = 5_000;

/** A handler whose moving-average run time is below this counts as quick (see `prefetch`). */
export const FastHandlerMs = 20;

class StepTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`step timed out after ${timeoutMs}ms`);
    this.name = 'StepTimeoutError';
  }
}

/**
 * Executes steps: claims available steps of its handlers' kinds, runs them with leases renewed
 * by heartbeats, and records each outcome fenced by its claim. Run as many workers, on as many
 * machines, as the database can serve.
 *
 * @example
 * ```ts
 * import { Worker } from '@cyclone/worker';
 *
 * const worker = new Worker({
 *   connectionString: process.env.CYCLONE_DATABASE_URL!,
 *   handlers: { 'email.send': async (ctx) => ({ sent: true, to: (ctx.input as { to: string }).to }) },
 *   concurrency: 10,
 * });
 * await worker.start();
 * process.on('SIGTERM', () => void worker.stop({ timeout: '10s' }));
 * ```
 */
export class Worker {
  /** This worker's id, as recorded on its claims. */
  readonly id: string;
  readonly store: PostgresStore;
  private readonly ownPool: pg.Pool | undefined;
  private readonly logger: Logger;
  private readonly handlers: ReadonlyMap<string, Handler>;
  private readonly kinds: readonly string[];
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private readonly pollMs: number;
  private readonly maxOutputBytes: number;
  private readonly random: () => number;
  private readonly completer: BatchCompleter;
  private readonly completionBatchSize: number;
  private readonly inFlight = new Map<string, InFlight>();
  /** Steps claimed ahead of a free slot: the next ones to start, oldest first. */
  private readonly buffered: ClaimedStep[] = [];
  /** The prefetch the caller chose; undefined lets the worker adapt it (see `prefetchNow`). */
  private readonly prefetchOption: number | undefined;
  /** Moving average of handler run times, in ms; undefined until a handler has finished. */
  private handlerMsAverage: number | undefined;
  /** Claim only once this many places (slots plus buffer) are free, so claims come in batches. */
  private readonly claimBatchMin: number;
  private readonly executions = new Set<Promise<void>>();
  private notifier: Notifier | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private registrationTimer: NodeJS.Timeout | undefined;
  private state: 'idle' | 'running' | 'stopping' | 'stopped' = 'idle';
  private fetching: Promise<void> | undefined;
  private fetchAgain = false;
  private mayHaveMore = true;
  /** Counts the signals that there may be work (notifications, polls), to catch one that lands mid-claim. */
  private workSignals = 0;

  constructor(options: WorkerOptions) {
    const problems = [];
    if (!options.pool && typeof options.connectionString !== 'string') {
      problems.push({
        path: 'connectionString',
        message: 'expected a connection string or a pg Pool (`pool`)',
      });
    }
    const handlers = Object.entries(options.handlers ?? {});
    for (const [kind, handler] of handlers) {
      if (typeof handler !== 'function') {
        problems.push({
          path: `handlers.${kind}`,
          message: `expected a function, got ${typeof handler}`,
        });
      }
    }
    const concurrency = options.concurrency ?? 10;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      problems.push({
        path: 'concurrency',
        message: `expected a whole number >= 1, got ${concurrency}`,
      });
    }
    for (const def of options.workflows ?? []) {
      for (const node of def.nodes) {
        if ((node.type === 'task' || node.type === 'fan_out') && !options.handlers?.[node.kind]) {
          problems.push({
            path: `workflows.${def.name}.nodes.${node.name}`,
            message: `needs a handler of kind "${node.kind}"; register it in handlers`,
          });
        }
      }
    }
    if (problems.length > 0) throw new ValidationError('worker options', problems);

    this.id = options.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.ownPool = options.pool
      ? undefined
      : new pg.Pool({ connectionString: options.connectionString, max: 4 });
    this.store = new PostgresStore({
      pool: options.pool ?? this.ownPool!,
      ...(options.schema === undefined ? {} : { schema: options.schema }),
    });
    this.logger = (options.logger ?? pino({ name: 'cyclone-worker' })).child({ worker: this.id });
    // pg emits an idle connection's failure (a Postgres restart or failover, pg_terminate_backend)
    // on its pool; with no listener that crashes the process. The pool has already dropped the
    // connection and opens a new one when needed, so logging is all there is to do.
    this.ownPool?.on('error', (error) => {
      this.logger.warn(
        { err: error },
        'an idle database connection was lost; the pool replaces it',
      );
    });
    this.handlers = new Map(handlers as [string, Handler][]);
    this.kinds = [...this.handlers.keys()];
    this.concurrency = concurrency;
    this.prefetchOption = options.prefetch;
    this.claimBatchMin = Math.max(1, Math.ceil(concurrency / 8));
    this.leaseMs = toMilliseconds(options.leaseDuration ?? '30s', 'leaseDuration');
    this.heartbeatMs = options.heartbeatInterval
      ? toMilliseconds(options.heartbeatInterval, 'heartbeatInterval')
      : Math.max(50, Math.floor(this.leaseMs / 3));
    this.pollMs = toMilliseconds(options.pollInterval ?? '1s', 'pollInterval');
    this.maxOutputBytes = options.maxOutputBytes ?? OutputBytes;
    this.random = options.random ?? Math.random;
    this.completionBatchSize = options.completionBatchSize ?? 100;
    this.completer = new BatchCompleter(this.store, this.completionBatchSize);
  }

  /** Steps this worker is executing now. */
  get activeSteps(): number {
    return this.inFlight.size;
  }

  /** Steps claimed ahead that wait for a free slot. */
  get bufferedSteps(): number {
    return this.buffered.length;
  }

  /** Starts listening for work and claiming it. Resolves once the worker is listening. */
  async start(): Promise<void> {
    if (this.state !== 'idle')
      throw new Error(`worker ${this.id} cannot start: it is ${this.state}`);
    this.state = 'running';
    const kinds = new Set(this.kinds);
    this.notifier = new Notifier({
      pool: this.store.pool,
      channels: [Channels.stepsAvailable],
      onNotification: (_channel, kind) => {
        if (!kinds.has(kind)) return;
        this.signalWork();
      },
      onReconnect: () => this.signalWork(),
      onError: (error) =>
        this.logger.warn({ err: error }, 'notification connection lost; polling meanwhile'),
    });
    await this.notifier.start();
    await this.store.registerWorker(this.id, this.kinds);
    this.registrationTimer = setInterval(() => {
      this.store.registerWorker(this.id, this.kinds).catch((error: unknown) => {
        this.logger.warn({ err: error }, 'refreshing the worker registration failed');
      });
    }, WorkerRegistrationRefreshMs);
    this.pollTimer = setInterval(() => this.signalWork(), this.pollMs);
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.heartbeatMs);
    this.logger.info({ kinds: this.kinds, concurrency: this.concurrency }, 'worker started');
    this.wake();
  }

  /**
   * Stops claiming, lets in-flight handlers finish for up to `timeout`, then aborts the rest and
   * releases their steps (available again, no attempt charged), and closes what it opened.
   */
  async stop(options: StopOptions = {}): Promise<void> {
    if (this.state === 'stopped' || this.state === 'stopping') return;
    const wasRunning = this.state === 'running';
    this.state = 'stopping';
    clearInterval(this.pollTimer);
    await this.notifier?.stop();
    await this.fetching;
    await this.releaseBuffered();
    if (wasRunning) {
      const timeoutMs = toMilliseconds(options.timeout ?? '10s', 'timeout');
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      const settled = await Promise.race([Promise.allSettled([...this.executions]), deadline]);
      clearTimeout(timer);
      if (settled === 'timeout') await this.releaseAll();
    }
    clearInterval(this.heartbeatTimer);
    clearInterval(this.registrationTimer);
    await this.completer.idle();
    await this.store.deregisterWorker(this.id).catch((error: unknown) => {
      this.logger.warn(
        { err: error },
        'removing the worker registration failed; it expires by itself',
      );
    });
    this.state = 'stopped';
    await this.ownPool?.end();
    this.logger.info('worker stopped');
  }

  /** Gives back the steps claimed ahead that never started: nothing of them ran. */
  private async releaseBuffered(): Promise<void> {
    const steps = this.buffered.splice(0);
    await Promise.all(
      steps.map((step) =>
        this.store.release(step.id, step.claimToken).catch((error: unknown) => {
          this.logger.error(
            { err: error, stepId: step.id },
            'release failed; the lease will expire',
          );
        }),
      ),
    );
  }

  private async releaseAll(): Promise<void> {
    const entries = [...this.inFlight.values()];
    this.logger.warn(
      { steps: entries.length },
      'shutdown timeout: aborting and releasing in-flight steps',
    );
    await Promise.all(
      entries.map(async (entry) => {
        entry.lost = 'released';
        entry.controller.abort(new Error('worker shutdown timeout'));
        try {
          await this.store.release(entry.step.id, entry.step.claimToken);
        } catch (error) {
          this.logger.error(
            { err: error, stepId: entry.step.id },
            'release failed; the lease will expire',
          );
        }
        this.inFlight.delete(entry.step.id);
      }),
    );
  }

  /** Something says there may be claimable steps: look. */
  private signalWork(): void {
    this.workSignals++;
    this.mayHaveMore = true;
    this.wake();
  }

  private wake(): void {
    if (this.state !== 'running') return;
    this.startBuffered();
    if (this.fetching) {
      this.fetchAgain = true;
      return;
    }
    this.fetching = this.fetch().finally(() => {
      this.fetching = undefined;
      // A slot freed after the loop's last check but before this point asked for another round.
      if (this.fetchAgain) this.wake();
    });
  }

  /** Starts buffered steps while slots are free. */
  private startBuffered(): void {
    while (this.inFlight.size < this.concurrency && this.buffered.length > 0) {
      this.launch(this.buffered.shift()!);
    }
  }

  /**
   * How many steps to hold claimed ahead of a free slot now. Unless the caller chose, the worker
   * prefetches a slot's worth per slot only while its handlers are quick (a moving average under
   * {@link FastHandlerMs}): then a buffered step waits about one handler's run time, and claims
   * come in batches. With slow handlers it holds nothing ahead, so it never sits on a step that
   * another worker could run now.
   */
  private prefetchNow(): number {
    if (this.prefetchOption !== undefined) return this.prefetchOption;
    const average = this.handlerMsAverage;
    return average !== undefined && average < FastHandlerMs ? this.concurrency : 0;
  }

  /** Free places for claimed steps: execution slots plus the prefetch buffer. */
  private room(): number {
    // Outcomes still being written count against the room once they exceed a batch or so, so a
    // slow database slows claiming down instead of piling up unwritten results.
    const recording = this.executions.size - this.inFlight.size;
    const backlog = Math.max(0, recording - this.concurrency - this.completionBatchSize);
    return (
      this.concurrency + this.prefetchNow() - this.inFlight.size - this.buffered.length - backlog
    );
  }

  private async fetch(): Promise<void> {
    do {
      this.fetchAgain = false;
      const room = this.room();
      if (this.state !== 'running' || !this.mayHaveMore) return;
      // Under load, wait until enough places are free to make one claim worth a round trip; an
      // idle worker claims at once, so a lone step starts without delay.
      const idle = this.inFlight.size + this.buffered.length === 0;
      if (room <= 0 || (room < this.claimBatchMin && !idle)) return;
      let steps: ClaimedStep[];
      const signalsBefore = this.workSignals;
      try {
        steps = await this.store.claim({
          kinds: this.kinds,
          limit: room,
          workerId: this.id,
          leaseMs: this.leaseMs,
        });
      } catch (error) {
        this.logger.error({ err: error }, 'claim failed; retrying at the next poll');
        return;
      }
      // A short batch means the queue is drained for now: stop asking until something says
      // there is more (a notification, the poll, or a completion's promotion).
      // A notification that arrived while the claim ran may be for a step the claim missed.
      this.mayHaveMore = steps.length === room || this.workSignals !== signalsBefore;
      this.buffered.push(...steps);
      this.startBuffered();
    } while (this.fetchAgain || (this.mayHaveMore && this.room() >= this.claimBatchMin));
  }

  private launch(step: ClaimedStep): void {
    const entry: InFlight = { step, controller: new AbortController() };
    // This worker may claim a step again after losing its lease on it (the sweep reclaimed it):
    // the older call no longer holds the step, so it is stopped, and its end must not untrack
    // the newer one, which the heartbeat has to keep renewing.
    const previous = this.inFlight.get(step.id);
    if (previous && !previous.lost) {
      previous.lost = 'lease lost';
      previous.controller.abort(new Error('lease lost: the step was reclaimed and claimed again'));
      this.logger.warn({ stepId: step.id, runId: step.runId }, 'lease lost; aborting handler');
    }
    this.inFlight.set(step.id, entry);
    const execution = this.execute(entry).finally(() => {
      this.executions.delete(execution);
      this.freeSlot(entry);
      // A written outcome shrinks the backlog that may be holding claims back.
      this.wake();
    });
    this.executions.add(execution);
  }

  private recordHandlerTime(ms: number): void {
    const previous = this.handlerMsAverage;
    this.handlerMsAverage = previous === undefined ? ms : previous * 0.9 + ms * 0.1;
  }

  /**
   * Gives the entry's execution slot to the next step. Called as soon as the handler returns:
   * recording the outcome happens beside the next handlers, not in their way.
   */
  private freeSlot(entry: InFlight): void {
    if (this.inFlight.get(entry.step.id) !== entry) return;
    this.inFlight.delete(entry.step.id);
    this.wake();
  }

  private async execute(entry: InFlight): Promise<void> {
    const { step, controller } = entry;
    const log = this.logger.child({
      runId: step.runId,
      stepId: step.id,
      node: step.node,
      kind: step.kind,
    });
    const handler = this.handlers.get(step.kind);
    const attempt = step.attempts + 1;
    let outcome: { ok: true; output: unknown } | { ok: false; error: unknown };
    let timer: NodeJS.Timeout | undefined;
    const startedAt = performance.now();
    try {
      if (!handler) throw new Error(`no handler registered for kind "${step.kind}"`);
      const ctx: StepContext = {
        runId: step.runId,
        stepId: step.id,
        node: step.node,
        kind: step.kind,
        workflow: step.workflow,
        input: step.input,
        deps: step.deps,
        item: step.item ?? undefined,
        index: step.itemIndex ?? undefined,
        attempt,
        signal: controller.signal,
        logger: log,
      };
      const running = Promise.resolve().then(() => handler(ctx));
      if (step.timeoutMs !== null) {
        const timeoutMs = step.timeoutMs;
        const timedOut = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const error = new StepTimeoutError(timeoutMs);
            controller.abort(error);
            reject(error);
          }, timeoutMs);
        });
        running.catch(() => undefined);
        outcome = { ok: true, output: await Promise.race([running, timedOut]) };
      } else {
        outcome = { ok: true, output: await running };
      }
    } catch (error) {
      outcome = { ok: false, error };
    } finally {
      clearTimeout(timer);
      this.recordHandlerTime(performance.now() - startedAt);
    }

    if (entry.lost) {
      log.warn({ reason: entry.lost }, 'step no longer held by this worker; its result is dropped');
      return;
    }
    this.freeSlot(entry);
    try {
      await this.record(step, attempt, outcome, log);
    } catch (error) {
      log.error(
        { err: error },
        'recording the outcome failed; the lease will expire and the step be reclaimed',
      );
    }
  }

  private async record(
    step: ClaimedStep,
    attempt: number,
    outcome: { ok: true; output: unknown } | { ok: false; error: unknown },
    log: Logger,
  ): Promise<void> {
    let error: unknown;
    if (outcome.ok) {
      let outputJson: string | undefined;
      try {
        outputJson = encodePayload(outcome.output === undefined ? null : outcome.output, {
          maxBytes: this.maxOutputBytes,
          subject: `output of node "${step.node}"`,
          path: 'output',
        });
      } catch (invalid) {
        error = invalid;
      }
      if (outputJson !== undefined) {
        const accepted = await this.completer.complete({
          stepId: step.id,
          claimToken: step.claimToken,
          outputJson,
        });
        if (accepted) log.debug({ attempt }, 'step completed');
        else log.warn({ attempt }, 'stale completion dropped: the claim moved on');
        return;
      }
    } else {
      error = outcome.error;
    }

    if (isSnoozeError(error)) {
      const held = await this.store.snooze(step.id, step.claimToken, error.delayMs);
      if (!held) log.warn('stale snooze dropped: the claim moved on');
      return;
    }
    // An invalid output can never be stored, so it is permanent like an explicit permanent().
    const permanent = isPermanentError(error) || error instanceof ValidationError;
    const message = error instanceof Error ? error.message : String(error);
    const stack = error instanceof Error ? (error.stack ?? null) : null;
    const result = await this.store.fail({
      stepId: step.id,
      claimToken: step.claimToken,
      errorKind: permanent ? ErrorKind.Permanent : ErrorKind.Retryable,
      error: message,
      panicStack: stack,
      attempts: step.attempts,
      maxAttempts: step.maxAttempts,
      retryDelayMs: backoffDelay(step.backoff ?? DefaultBackoff, attempt, this.random),
    });
    if (result === 'fenced') log.warn({ attempt }, 'stale failure dropped: the claim moved on');
    else
      log.info(
        {
          attempt,
          outcome: result,
          errorKind: permanent ? 'permanent' : 'retryable',
          error: message,
        },
        'step failed',
      );
  }

  private async heartbeat(): Promise<void> {
    const entries = [...this.inFlight.values()].filter((e) => !e.lost);
    const waiting = [...this.buffered];
    if (entries.length === 0 && waiting.length === 0) return;
    try {
      const held = await this.store.heartbeat(
        [...entries.map((e) => e.step), ...waiting].map((step) => ({
          stepId: step.id,
          claimToken: step.claimToken,
        })),
        this.leaseMs,
      );
      // A buffered step that lost its claim (cancelled, reclaimed) is dropped before it starts.
      for (const step of waiting) {
        const at = this.buffered.indexOf(step);
        if (!held.has(step.id) && at >= 0) this.buffered.splice(at, 1);
      }
      for (const entry of entries) {
        if (held.has(entry.step.id) || this.inFlight.get(entry.step.id) !== entry) continue;
        entry.lost = 'lease lost';
        entry.controller.abort(new Error('lease lost: the step was cancelled, reclaimed or ended'));
        this.logger.warn(
          { stepId: entry.step.id, runId: entry.step.runId },
          'lease lost; aborting handler',
        );
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'heartbeat failed; retrying at the next interval');
    }
  }
}
