import type { Logger } from 'pino';
import { ErrorKind, thrownMessage, toStorableText, truncateText } from '@cyclone/core';
import type { ClaimedStep, Completion, WorkerStore } from '@cyclone/store-postgres';
import { WorkCount } from './work-count.js';
import { loggableError } from './log-error.js';
import type { StepOutcome } from './executor.js';
import { redactSecrets } from './redact-secrets.js';
import { NoStepMetrics, type StepMetrics } from './step-metrics.js';
import {
  isTransientDatabaseError,
  retryTransient,
  type RetryTransientOptions,
  driverErrorOf,
} from './write-retry.js';

/** Options of a {@link Recorder}. */
export interface RecorderOptions {
  /** Most completions written in one statement. */
  readonly completionBatchSize: number;
  /** How long a write that meets transient database errors is retried, in milliseconds. */
  readonly writeRetryMs: number;
  /** Whether the `step failed` line carries the (redacted) error message. */
  readonly logErrorMessages: boolean;
}

type Failed = Extract<StepOutcome, { type: 'retry' | 'discard' }>;

/** Most bytes of a database error's message kept in the fixed error of an unrecordable outcome. */
const ReasonBytes = 512;

/**
 * Writes the outcomes of settled handlers, fenced by their claims: completions in batches (see
 * {@link BatchCompleter}, below), failures and snoozes one statement each. A write that meets a transient
 * database error (a restart, a killed session) is retried for up to `writeRetryMs`, so finished
 * work is not redone after the lease expires. An outcome that cannot be written for any other
 * reason (the database refuses it) discards the step as `permanent` with a fixed error naming the
 * reason, instead of leaving it to the lease, which would run the handler again and again.
 */
export class Recorder {
  private readonly completer: BatchCompleter;
  private readonly writes = new WorkCount();
  private readonly retry: RetryTransientOptions;

  constructor(
    private readonly store: WorkerStore,
    private readonly options: RecorderOptions,
    private readonly logger: Logger,
    private readonly metrics: StepMetrics = NoStepMetrics,
  ) {
    this.retry = {
      budgetMs: options.writeRetryMs,
      onRetry: (error, attempt, delayMs) =>
        this.logger.warn(
          { error: loggableError(error), attempt, delayMs },
          'recording an outcome met a transient database error; retrying',
        ),
    };
    this.completer = new BatchCompleter(store, options.completionBatchSize, this.retry);
  }

  /**
   * Records the outcome of one attempt. Never rejects: what cannot be written is logged.
   * `writtenWithin`: the handler wrote the step's completion inside its own transaction
   * (`ctx.completeWithin`), leaving these runs to settle; a fence refusing this outcome then
   * means that transaction committed, and the runs are settled once the outcome is written.
   */
  async record(
    step: ClaimedStep,
    outcome: StepOutcome,
    log: () => Logger,
    writtenWithin?: readonly string[],
  ): Promise<void> {
    this.writes.begin();
    try {
      await this.write(step, outcome, log, writtenWithin !== undefined);
      if (writtenWithin && writtenWithin.length > 0)
        await this.store.settleCommitted(writtenWithin);
    } catch (error) {
      log().error(
        { error: loggableError(error) },
        'recording the outcome failed; the lease will expire and the step be reclaimed',
      );
    } finally {
      this.writes.end();
    }
  }

  /** Resolves once every outcome handed over so far is written (or given up). */
  idle(): Promise<void> {
    return this.writes.idle();
  }

  private async write(
    step: ClaimedStep,
    outcome: StepOutcome,
    log: () => Logger,
    writtenWithin: boolean,
  ): Promise<void> {
    const attempt = step.attempts + 1;
    if (outcome.type === 'complete') {
      let accepted: boolean;
      try {
        accepted = await this.completer.complete(
          { stepId: step.id, claimToken: step.claimToken, outputJson: outcome.outputJson },
          { workflowStep: !step.standalone },
        );
      } catch (error) {
        if (isTransientDatabaseError(error)) throw error;
        return this.discardUnrecordable(
          step,
          "the handler's output could not be recorded",
          error,
          log,
        );
      }
      if (!accepted && writtenWithin) return this.completedWithin(step, log);
      if (!accepted) {
        this.metrics.dropped(step.kind);
        log().warn({ attempt }, 'stale completion dropped: the claim moved on');
        return;
      }
      this.metrics.completed(step.kind);
      // The step's child logger is made only when a line is written.
      if (this.logger.isLevelEnabled('debug')) log().debug({ attempt }, 'step completed');
      return;
    }
    if (outcome.type === 'snooze') {
      const held = await retryTransient(
        () => this.store.snooze(step.id, step.claimToken, outcome.delayMs),
        this.retry,
      );
      if (held) this.metrics.snoozed(step.kind);
      else this.metrics.dropped(step.kind);
      if (!held) log().warn('stale snooze dropped: the claim moved on');
      return;
    }
    await this.fail(step, outcome, log, writtenWithin);
  }

  /** The outcome was fenced out after `ctx.completeWithin`: the handler's transaction committed it. */
  private completedWithin(step: ClaimedStep, log: () => Logger): void {
    this.metrics.completed(step.kind);
    if (this.logger.isLevelEnabled('debug')) {
      log().debug({ attempt: step.attempts + 1 }, "step completed in the handler's transaction");
    }
  }

  private async fail(
    step: ClaimedStep,
    outcome: Failed,
    log: () => Logger,
    writtenWithin = false,
  ): Promise<void> {
    const attempt = step.attempts + 1;
    let result;
    try {
      result = await retryTransient(
        () =>
          this.store.fail({
            stepId: step.id,
            claimToken: step.claimToken,
            errorKind: outcome.errorKind,
            error: outcome.error.message,
            panicStack: outcome.error.stack,
            attempts: step.attempts,
            maxAttempts: step.maxAttempts,
            retryDelayMs: outcome.retryDelayMs,
          }),
        this.retry,
      );
    } catch (error) {
      if (isTransientDatabaseError(error)) throw error;
      return this.discardUnrecordable(
        step,
        "the handler's error could not be recorded",
        error,
        log,
      );
    }
    if (result === 'fenced' && writtenWithin) {
      log().warn(
        { attempt },
        'the handler threw after writing its completion in its transaction, which committed; the step stays completed',
      );
      return this.completedWithin(step, log);
    }
    if (result === 'fenced') this.metrics.dropped(step.kind);
    else this.metrics.failed(step.kind, result);
    if (result === 'fenced') {
      log().warn({ attempt }, 'stale failure dropped: the claim moved on');
      return;
    }
    const { name, code, message } = outcome.error;
    log().info(
      {
        attempt,
        outcome: result,
        errorKind: outcome.errorKind,
        // Messages routinely carry secrets: only the class and code, unless the application asks.
        error: {
          type: name,
          ...(code === undefined ? {} : { code }),
          ...(this.options.logErrorMessages
            ? { message: loggableError(new Error(message)).message }
            : {}),
        },
      },
      'step failed',
    );
  }

  /**
   * The database refused an outcome for a reason a retry cannot cure: discard the step now, with a
   * fixed error naming the reason, rather than leave it to its lease and run the handler again.
   */
  private async discardUnrecordable(
    step: ClaimedStep,
    what: string,
    refusal: unknown,
    log: () => Logger,
  ): Promise<void> {
    // What Postgres said, not the store's wrapper of it.
    const refused = loggableError(driverErrorOf(refusal));
    const reason = truncateText(
      toStorableText(
        redactSecrets(
          `${refused.code ? `${refused.code} ` : ''}${thrownMessage(driverErrorOf(refusal))}`,
        ),
      ),
      ReasonBytes,
    );
    log().error({ error: refused }, `${what}; discarding the step`);
    const result = await retryTransient(
      () =>
        this.store.fail({
          stepId: step.id,
          claimToken: step.claimToken,
          errorKind: ErrorKind.Permanent,
          error: `${what}: ${reason}`,
          panicStack: null,
          attempts: step.attempts,
          maxAttempts: step.maxAttempts,
          retryDelayMs: 0,
        }),
      this.retry,
    );
    if (result === 'fenced') this.metrics.dropped(step.kind);
    else this.metrics.failed(step.kind, result);
    if (result === 'fenced') log().warn('stale failure dropped: the claim moved on');
  }
}

interface Pending {
  readonly completion: Completion;
  readonly workflowStep: boolean;
  readonly resolve: (accepted: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Most characters of output JSON one batch carries, about 8 MiB (a batch always takes at least one
 * completion): many large outputs are split over batches, so no statement grows toward the size of
 * hundreds of outputs of up to `maxOutputBytes` each.
 */
export const MaxBatchOutputChars = 8 * 1024 * 1024;

/**
 * Most completions in a batch that holds a workflow step's. A workflow step's completion may make
 * its dependents claimable, at its batch's commit: a batch of 500 held the next wave of a workflow
 * back while it gathered and was written, and the workers went hungry in between. A cap of 350
 * ran chains and diamonds fastest once a completion's cost per dependent was linear (decisions
 * 295 and 297); standalone jobs, which unblock nothing, keep the full batch.
 */
export const MaxWorkflowBatch = 350;

/** How a completion is queued. */
export interface CompleteOptions {
  /** Whether it is a workflow step's, whose dependents may wait for it (see {@link MaxWorkflowBatch}). */
  readonly workflowStep?: boolean;
}

/**
 * Records successes in batches, one batch at a time: while a batch is being written, the next one
 * gathers, so under load each round trip carries many completions, and when idle a single
 * completion is written at once. A statement's fixed cost and its transaction's commit are paid
 * per batch, so fewer, larger batches cost the server less per job: two batches in flight halved
 * their size and cost a fifth more of the server's CPU per job, for a lower rate (decision 294).
 * A batch that meets a transient database error is written again (see {@link retryTransient}). A
 * caller learns whether its completion was accepted or fenced out.
 */
export class BatchCompleter {
  private queue: Pending[] = [];
  /** The loop writing batches, while one runs. */
  private draining: Promise<void> | undefined;

  constructor(
    private readonly store: Pick<WorkerStore, 'complete'>,
    private readonly maxBatch: number,
    private readonly retry: RetryTransientOptions,
    private readonly maxWorkflowBatch = MaxWorkflowBatch,
  ) {}

  /** Queues a completion; resolves with whether it was accepted, rejects when it could not be written. */
  complete(completion: Completion, options: CompleteOptions = {}): Promise<boolean> {
    const workflowStep = options.workflowStep ?? false;
    return new Promise((resolve, reject) => {
      this.queue.push({ completion, workflowStep, resolve, reject });
      if (!this.draining) this.startDrain();
    });
  }

  private startDrain(): void {
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      // A completion queued after the loop's last look at the queue, before this ran, found the
      // loop still running and started none: it starts the next one.
      if (this.queue.length > 0) this.startDrain();
    });
  }

  private async drain(): Promise<void> {
    // Let the completions of this turn of the event loop join the first batch.
    await Promise.resolve();
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.batchLength());
      try {
        await this.write(batch);
      } catch (error) {
        if (batch.length === 1 || isTransientDatabaseError(error)) {
          for (const p of batch) p.reject(error);
          continue;
        }
        // One completion may have broken the statement for all: write each alone, so the others
        // are not lost with it.
        for (const p of batch) await this.write([p]).catch(p.reject);
      }
    }
  }

  /**
   * How many queued completions the next batch takes: up to `maxBatch`, or `maxWorkflowBatch` once
   * it holds a workflow step's, and the size cap.
   */
  private batchLength(): number {
    let chars = 0;
    let most = Math.min(this.queue.length, this.maxBatch);
    for (let n = 0; n < most; n++) {
      const pending = this.queue[n]!;
      if (pending.workflowStep && most > this.maxWorkflowBatch) {
        // A workflow step's completion past the smaller cap starts the next batch instead.
        if (n >= this.maxWorkflowBatch) return n;
        most = this.maxWorkflowBatch;
      }
      chars += pending.completion.outputJson.length;
      if (chars > MaxBatchOutputChars) return Math.max(n, 1);
    }
    return most;
  }

  private async write(batch: readonly Pending[]): Promise<void> {
    const completions = batch.map((p) => p.completion);
    const accepted = await retryTransient(() => this.store.complete(completions), this.retry);
    for (const p of batch) p.resolve(accepted.has(p.completion.stepId));
  }

  /** Resolves once everything queued so far is written. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }
}
