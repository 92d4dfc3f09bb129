import type { Logger } from 'pino';
import type {
  ClaimedStep,
  StoreNotifications,
  Subscription,
  WorkerStore,
} from '@cyclone/store-postgres';
import type { LeaseBuffer } from './lease-keeper.js';
import { loggableError } from './log-error.js';

/** A handler whose moving-average run time is below this counts as quick (see `prefetch`). */
export const FastHandlerMs = 20;

/** What the producer feeds: the execution slots. */
export interface ProducerSink {
  /** Handlers running now. */
  readonly running: number;
  /** Launched steps whose outcomes are not written yet (running handlers included). */
  readonly unfinished: number;
  /** Starts a claimed step in a free slot. */
  launch(step: ClaimedStep): void;
}

/** Options of a {@link Producer}. */
export interface ProducerOptions {
  readonly workerId: string;
  readonly kinds: readonly string[];
  readonly concurrency: number;
  /** The prefetch the caller chose; undefined lets the producer adapt it (see `prefetchNow`). */
  readonly prefetch: number | undefined;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly completionBatchSize: number;
}

/**
 * Finds work and claims it: listens for notifications and polls as a fallback, claims in batches
 * sized to the free slots plus a prefetch buffer, and starts buffered steps as slots free up. A
 * notification that lands while a claim runs triggers another claim, so no wake-up is lost.
 */
export class Producer implements LeaseBuffer {
  /** Steps claimed ahead of a free slot: the next ones to start, oldest first. */
  private readonly buffered: ClaimedStep[] = [];
  /** Claim only once this many places (slots plus buffer) are free, so claims come in batches. */
  private readonly claimBatchMin: number;
  /** Moving average of handler run times, in ms; undefined until a handler has finished. */
  private handlerMsAverage: number | undefined;
  private subscription: Subscription | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private running = false;
  private fetching: Promise<void> | undefined;
  private fetchAgain = false;
  private mayHaveMore = true;
  /** Counts the signals that there may be work (notifications, polls), to catch one that lands mid-claim. */
  private workSignals = 0;

  constructor(
    private readonly store: WorkerStore & StoreNotifications,
    private readonly options: ProducerOptions,
    private readonly sink: ProducerSink,
    private readonly logger: Logger,
  ) {
    this.claimBatchMin = Math.max(1, Math.ceil(options.concurrency / 8));
  }

  /** The steps claimed ahead now. */
  get steps(): readonly ClaimedStep[] {
    return this.buffered;
  }

  /**
   * Starts listening for notifications. Resolves once the subscription is in place.
   *
   * @param onStepsCancelled - called with the ids of running steps an operator or a scanner ended
   */
  async listen(onStepsCancelled?: (stepIds: readonly string[]) => void): Promise<void> {
    const kinds = new Set(this.options.kinds);
    this.subscription = await this.store.subscribe({
      ...(onStepsCancelled ? { stepsCancelled: onStepsCancelled } : {}),
      stepsAvailable: (kind) => {
        if (kinds.has(kind)) this.signalWork();
      },
      reconnected: () => this.signalWork(),
      error: (error) =>
        this.logger.warn(
          { error: loggableError(error) },
          'notification connection lost; polling meanwhile',
        ),
    });
  }

  /** Starts polling and claims at once. */
  start(): void {
    this.running = true;
    this.pollTimer = setInterval(() => this.signalWork(), this.options.pollMs);
    this.wake();
  }

  /** Stops claiming, waits for a claim under way, and gives back the steps claimed ahead. */
  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.pollTimer);
    await this.subscription?.close();
    await this.fetching;
    await this.releaseBuffered();
  }

  /** Drops a claimed-ahead step whose claim was lost. */
  drop(step: ClaimedStep): void {
    const at = this.buffered.indexOf(step);
    if (at >= 0) this.buffered.splice(at, 1);
  }

  /** A handler finished after `ms`: feeds the moving average that drives the adaptive prefetch. */
  recordHandlerTime(ms: number): void {
    const previous = this.handlerMsAverage;
    this.handlerMsAverage = previous === undefined ? ms : previous * 0.9 + ms * 0.1;
  }

  /** A slot may be free: start a buffered step, and claim if there is room. */
  wake(): void {
    if (!this.running) return;
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

  /** Something says there may be claimable steps: look. */
  private signalWork(): void {
    this.workSignals++;
    this.mayHaveMore = true;
    this.wake();
  }

  /** Gives back the steps claimed ahead that never started: nothing of them ran. */
  private async releaseBuffered(): Promise<void> {
    const steps = this.buffered.splice(0);
    await Promise.all(
      steps.map((step) =>
        this.store.release(step.id, step.claimToken).catch((error: unknown) => {
          this.logger.error(
            { error: loggableError(error), stepId: step.id },
            'release failed; the lease will expire',
          );
        }),
      ),
    );
  }

  /** Starts buffered steps while slots are free. */
  private startBuffered(): void {
    while (this.sink.running < this.options.concurrency && this.buffered.length > 0) {
      this.sink.launch(this.buffered.shift()!);
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
    if (this.options.prefetch !== undefined) return this.options.prefetch;
    const average = this.handlerMsAverage;
    return average !== undefined && average < FastHandlerMs ? this.options.concurrency : 0;
  }

  /** Free places for claimed steps: execution slots plus the prefetch buffer. */
  private room(): number {
    const { concurrency, completionBatchSize } = this.options;
    // Outcomes still being written count against the room once they exceed a batch or so, so a
    // slow database slows claiming down instead of piling up unwritten results.
    const recording = this.sink.unfinished - this.sink.running;
    const backlog = Math.max(0, recording - concurrency - completionBatchSize);
    return concurrency + this.prefetchNow() - this.sink.running - this.buffered.length - backlog;
  }

  private async fetch(): Promise<void> {
    do {
      this.fetchAgain = false;
      const room = this.room();
      if (!this.running || !this.mayHaveMore) return;
      // Under load, wait until enough places are free to make one claim worth a round trip; an
      // idle worker claims at once, so a lone step starts without delay.
      const idle = this.sink.running + this.buffered.length === 0;
      if (room <= 0 || (room < this.claimBatchMin && !idle)) return;
      let steps: ClaimedStep[];
      const signalsBefore = this.workSignals;
      try {
        steps = await this.store.claim({
          kinds: this.options.kinds,
          limit: room,
          workerId: this.options.workerId,
          leaseMs: this.options.leaseMs,
        });
      } catch (error) {
        this.logger.error(
          { error: loggableError(error) },
          'claim failed; retrying at the next poll',
        );
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
}
