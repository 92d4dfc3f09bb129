import type { Logger } from 'pino';
import { ErrorKind, thrownMessage, toStorableText, truncateText } from '@cyclone/core';
import type { ClaimedStep, WorkerStore } from '@cyclone/store-postgres';
import { BatchCompleter } from './completion-batcher.js';
import { WorkCount } from './work-count.js';
import { loggableError } from './log-error.js';
import type { StepOutcome } from './outcome.js';
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
 * {@link BatchCompleter}), failures and snoozes one statement each. A write that meets a transient
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
