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

/**
 * Most steps held claimed ahead while handlers are quick, whatever the concurrency: the local
 * queue. Claims then carry a hundred rows or more, so a claim's fixed cost is spread thin even at
 * concurrency 10, where claims sized to the slots carried ten.
 */
export const LocalQueueSize = 500;

/**
 * The local queue holds at most about this much work (slots times the average handler time), so
 * a buffered step starts within it and a worker does not sit on steps others could run sooner.
 */
export const LocalQueueHorizonMs = 500;

/**
 * A claimed-ahead step not started within this long is given back (adaptive prefetch only):
 * handlers turned slow, and another worker may have a free slot for it now.
 */
export const BufferedMaxAgeMs = 2_000;

/**
 * Most steps of kinds under fair share held claimed ahead, per slot, while handlers are quick:
 * they are claimed keys in turn and start in that order, so no key's steps run in a row, and a
 * key that arrives late waits behind at most this many steps a slot (decision 385).
 */
export const FairAheadPerSlot = 8;

/**
 * And at most about this much work a slot (the handlers' average run time times the steps): a
 * key that arrives late waits about this much longer than behind the slots alone.
 */
export const FairAheadMs = 5;

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
  /** When each buffered step was claimed (`performance.now()`), for {@link BufferedMaxAgeMs}. */
  private readonly claimedAt = new WeakMap<ClaimedStep, number>();
  /**
   * Set when buffered steps aged out: the handlers that made the average quick are stuck, so hold
   * nothing ahead until one finishes (or the average, which only a finish updates, would claim the
   * released steps straight back).
   */
  private agedOut = false;
  /** Releases of aged buffered steps under way; `stop()` waits for them. */
  private readonly releasing = new Set<Promise<void>>();
  /** Claim only once this many places (slots plus buffer) are free, so claims come in batches. */
  private readonly claimBatchMin: number;
  /** Moving average of handler run times, in ms; undefined until a handler has finished. */
  private handlerMsAverage: number | undefined;
  private subscription: Subscription | undefined;
  /** Set when nothing LISTENs for this worker (see {@link Producer.listen}): polling alone. */
  private pollingOnly = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private running = false;
  private fetching: Promise<void> | undefined;
  private fetchAgain = false;
  private mayHaveMore = true;
  /**
   * Set when the last claim took as many steps under fair share as it was allowed: the kind may
   * have more, claimed once enough of the fair places are free (see `fairRoom`).
   */
  private fairHeld = false;
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
   * Starts listening for notifications. Resolves once the subscription is in place, with whether
   * a connection LISTENs: not behind a transaction-mode pooler without a listen URL, where the
   * poll is the only wake-up and each written outcome counts as one too (it may have made the
   * next steps of its run claimable).
   *
   * @param onStepsCancelled - called with the ids of running steps an operator or a scanner ended
   */
  async listen(onStepsCancelled?: (stepIds: readonly string[]) => void): Promise<boolean> {
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
    this.pollingOnly = !this.subscription.listening;
    return this.subscription.listening;
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
    await Promise.all([...this.releasing]);
  }

  /** Drops a claimed-ahead step whose claim was lost. */
  drop(step: ClaimedStep): void {
    const at = this.buffered.indexOf(step);
    if (at >= 0) this.buffered.splice(at, 1);
  }

  /**
   * A step's outcome is written. It may have freed room (a backlog of outcomes holds claims back)
   * and, without notifications, it is the only early sign that its run's next steps are claimable.
   */
  outcomeWritten(): void {
    if (this.pollingOnly) this.signalWork();
    else this.wake();
  }

  /** A handler finished after `ms`: feeds the moving average that drives the adaptive prefetch. */
  recordHandlerTime(ms: number): void {
    this.agedOut = false;
    const previous = this.handlerMsAverage;
    this.handlerMsAverage = previous === undefined ? ms : previous * 0.9 + ms * 0.1;
  }

  /** A slot may be free: start a buffered step, and claim if there is room. */
  wake(): void {
    if (!this.running) return;
    this.startBuffered();
    this.releaseAged();
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
    await this.release(this.buffered.splice(0));
  }

  /**
   * Gives back the buffered steps that waited longer than {@link BufferedMaxAgeMs}: the queue is
   * oldest first, so they are at its front. Nothing of them ran, so another worker may take them
   * (the release is an ordinary `step_released`, no attempt charged).
   */
  private releaseAged(): void {
    // A prefetch the caller chose is kept as chosen.
    if (this.options.prefetch !== undefined) return;
    const now = performance.now();
    let aged = 0;
    while (
      aged < this.buffered.length &&
      now - (this.claimedAt.get(this.buffered[aged]!) ?? now) > BufferedMaxAgeMs
    ) {
      aged++;
    }
    if (aged === 0) return;
    this.agedOut = true;
    const release: Promise<void> = this.release(this.buffered.splice(0, aged)).finally(() =>
      this.releasing.delete(release),
    );
    this.releasing.add(release);
  }

  private async release(steps: readonly ClaimedStep[]): Promise<void> {
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
   * keeps a local queue (up to {@link LocalQueueSize} steps, about {@link LocalQueueHorizonMs} of
   * work, at least a slot's worth per slot) only while its handlers are quick (a moving average under {@link FastHandlerMs}): then a buffered
   * step waits a few handler run times at most, and claims come in large batches. With slow
   * handlers it holds nothing ahead, so it never sits on a step that another worker could run
   * now; what it held when they turned slow is given back once it ages.
   */
  private prefetchNow(): number {
    if (this.options.prefetch !== undefined) return this.options.prefetch;
    const average = this.handlerMsAverage;
    if (average === undefined || average >= FastHandlerMs || this.agedOut) return 0;
    const { concurrency } = this.options;
    const horizon = Math.floor((concurrency * LocalQueueHorizonMs) / Math.max(average, 0.1));
    return Math.max(concurrency, Math.min(LocalQueueSize, horizon));
  }

  /**
   * Steps of kinds under fair share to hold claimed ahead of a free slot now: the local queue's
   * size (none with slow handlers), at most {@link FairAheadPerSlot} and about
   * {@link FairAheadMs} of work a slot.
   */
  private fairAhead(): number {
    const { concurrency } = this.options;
    const perSlot = Math.min(
      FairAheadPerSlot,
      FairAheadMs / Math.max(this.handlerMsAverage ?? FairAheadMs, 0.01),
    );
    return Math.min(this.prefetchNow(), Math.floor(concurrency * perSlot));
  }

  /**
   * Places for steps of kinds under fair share: the free slots plus {@link fairAhead}, less the
   * steps already claimed ahead (of any kind: they start first).
   */
  private fairRoom(): number {
    const { concurrency } = this.options;
    return Math.max(0, concurrency + this.fairAhead() - this.sink.running - this.buffered.length);
  }

  /**
   * Claim only once this many places are free: an eighth of the slots, or a quarter of the local
   * queue while one is kept, so a deep buffer is refilled in a few large claims, not many small.
   */
  private batchMin(): number {
    return Math.max(this.claimBatchMin, Math.floor(this.prefetchNow() / 4));
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
      if (room <= 0 || (room < this.batchMin() && !idle)) return;
      // Steps of kinds under fair share are claimed for the free slots and a short local queue,
      // keys in turn, and start in that order (decision 385).
      const fairRoom = this.fairRoom();
      // While steps run or wait, a claim for them waits until a quarter of the slots and half of
      // that local queue are free, so one claim takes many steps in turn, not one for every freed
      // slot, and the steps still waiting keep the slots busy meanwhile (decisions 384, 385).
      const fairBatch = Math.floor(this.options.concurrency / 4 + this.fairAhead() / 2);
      if (this.fairHeld && fairRoom < Math.max(1, fairBatch) && !idle) return;
      let steps: ClaimedStep[];
      const signalsBefore = this.workSignals;
      try {
        steps = await this.store.claim({
          kinds: this.options.kinds,
          limit: room,
          fairLimit: fairRoom,
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
      let fair = 0;
      for (const step of steps) if (step.fairShare) fair++;
      this.fairHeld = fair > 0 && fair >= fairRoom;
      this.mayHaveMore =
        steps.length === room || this.fairHeld || this.workSignals !== signalsBefore;
      const claimedAt = performance.now();
      for (const step of steps) this.claimedAt.set(step, claimedAt);
      this.buffered.push(...steps);
      this.startBuffered();
    } while (this.fetchAgain || (this.mayHaveMore && this.room() >= this.batchMin()));
  }
}
