import type { Logger } from 'pino';
import {
  backoffDelay,
  DefaultBackoff,
  describeThrown,
  ErrorKind,
  isPermanentError,
  isSnoozeError,
  ValidationError,
  type BackoffPolicy,
  type ThrownDescription,
} from '@cyclone/core';
import type { ClaimedStep } from '@cyclone/store-postgres';
import { StepTimeoutError } from './errors.js';
import { InFlight, InFlightSteps } from './in-flight.js';
import type { Recorder } from './recorder.js';
import { HandlerContext, type Handler } from './step-context.js';
import type { StepTransaction, StepTransactionDeps } from './step-transaction.js';
import { loggableError } from './log-error.js';
import { encodeOutput, type OutputCheck } from './output-check.js';
import type { StepMetrics } from './step-metrics.js';
import { StepAbort } from './step-abort.js';
import { traceStep, tracing } from './tracing.js';
import { WorkCount } from './work-count.js';

/** What an {@link Executor} is wired to. */
export interface ExecutorOptions {
  readonly handlers: ReadonlyMap<string, Handler>;
  /** Checks outputs against their nodes' schemas (also on the transactional paths). */
  readonly outputCheck: OutputCheck;
  readonly logger: Logger;
  readonly recorder: Recorder;
  readonly outcome: OutcomeOptions;
  /** What handlers' transactional completions (`ctx.transaction`) write through. */
  readonly transactions: StepTransactionDeps;
  /** Told each handler's run time by kind. */
  readonly metrics: StepMetrics;
  /** Told how long each handler ran, in milliseconds (the producer's adaptive prefetch). */
  readonly onHandlerTime: (ms: number) => void;
  /** Told when a slot is free again. */
  readonly onSlotFreed: () => void;
  /** Told when a step's outcome is written (or given up). */
  readonly onOutcomeWritten: () => void;
}

/**
 * Runs handlers: builds each step's context, enforces its timeout, aborts it when told, decides
 * what the settled result means for the step ({@link decideOutcome}, below) and hands that
 * outcome to the recorder. A slot is freed as soon as the handler returns, so recording happens
 * beside the next handlers, not in their way.
 */
export class Executor {
  /** The steps whose handlers run now. */
  readonly inFlight = new InFlightSteps();
  /** Every launched step until its outcome is written: its handler, then its recording. */
  private readonly executions = new WorkCount();

  constructor(private readonly options: ExecutorOptions) {}

  /** Steps launched whose outcomes are not written yet (running handlers included). */
  get unfinished(): number {
    return this.executions.size;
  }

  /** Resolves once every launched step has finished (handler settled and outcome written). */
  idle(): Promise<void> {
    return this.executions.idle();
  }

  /** Starts a claimed step's handler in a free slot. */
  launch(step: ClaimedStep): void {
    const entry = new InFlight(step, new StepAbort());
    const previous = this.inFlight.add(entry);
    if (previous) {
      previous.lost = 'lease lost';
      previous.controller.abort(new Error('lease lost: the step was reclaimed and claimed again'));
      this.options.logger.warn(
        { stepId: step.id, runId: step.runId },
        'lease lost; aborting handler',
      );
    }
    this.executions.begin();
    void this.execute(entry);
  }

  /**
   * Aborts every running handler for a shutdown: their results are no longer recorded.
   * @returns the aborted entries, whose `handlerSettled` says when each one has stopped
   */
  abortAll(reason: Error): InFlight[] {
    const entries = this.inFlight.all().filter((entry) => !entry.lost);
    for (const entry of entries) {
      entry.lost = 'released';
      entry.controller.abort(reason);
    }
    return entries;
  }

  /** Stops tracking an entry (its step is released or left to its lease). */
  forget(entry: InFlight): void {
    this.inFlight.free(entry);
  }

  private freeSlot(entry: InFlight): void {
    if (this.inFlight.free(entry)) this.options.onSlotFreed();
  }

  /** Runs a launched step to its end: its handler, then its outcome's recording. Never rejects. */
  private async execute(entry: InFlight): Promise<void> {
    try {
      const { step } = entry;
      // The step's child logger is made on first use: binding its fields costs more than the rest
      // of a step's bookkeeping, and a step that succeeds usually logs nothing.
      let child: Logger | undefined;
      const log = () =>
        (child ??= this.options.logger.child({
          runId: step.runId,
          stepId: step.id,
          node: step.node,
          kind: step.kind,
        }));
      const startedAt = performance.now();
      // Without a tracer the handler is called directly: no closure for a span that is not made.
      let result = await (tracing()
        ? traceStep(step, () => this.run(entry, log))
        : this.run(entry, log));
      const transactional = entry.context?.transactional;
      // A completion written in a transaction (ctx.transaction, ctx.completeWithin) was checked
      // before it was written; a returned output is checked here, before it is recorded.
      if (
        result.ok &&
        transactional?.state !== 'committed' &&
        transactional?.state !== 'within' &&
        this.options.outputCheck.active
      ) {
        const refusal = await this.options.outputCheck.refusal(step, result.output);
        if (refusal !== undefined) result = { ok: false, error: refusal };
      }
      const handlerMs = performance.now() - startedAt;
      this.options.onHandlerTime(handlerMs);
      this.options.metrics.handlerFinished(step.kind, handlerMs);
      if (transactional?.state === 'committed') {
        // The step completed with the handler's transaction: nothing is left to record.
        if (!result.ok) {
          log().warn(
            { error: loggableError(result.error) },
            'the handler threw after its transaction committed; the step stays completed',
          );
        }
        return;
      }
      if (entry.lost) {
        log().warn(
          { reason: entry.lost },
          'step no longer held by this worker; its result is dropped',
        );
        return;
      }
      this.freeSlot(entry);
      await this.options.recorder.record(
        step,
        decideOutcome(result, step, this.options.outcome),
        log,
        writtenWithin(transactional),
      );
    } finally {
      this.executions.end();
      this.freeSlot(entry);
      this.options.onOutcomeWritten();
    }
  }

  /** Calls the handler; resolves with what it returned or threw, or the timeout. Never rejects. */
  private async run(entry: InFlight, log: () => Logger): Promise<HandlerResult> {
    const { step, controller } = entry;
    const handler = this.options.handlers.get(step.kind);
    if (!handler) {
      // No handler to wait for: there is nothing to settle later.
      entry.handlerDone();
      return { ok: false, error: new Error(`no handler registered for kind "${step.kind}"`) };
    }
    const ctx = new HandlerContext(step, controller, log, this.options.transactions);
    entry.context = ctx;
    // Called on a later microtask: a handler that throws at once rejects like one that fails.
    const running = Promise.resolve().then(() => handler(ctx));
    if (step.timeoutMs === null) {
      try {
        return { ok: true, output: await running };
      } catch (error) {
        return { ok: false, error };
      } finally {
        entry.handlerDone();
      }
    }
    // A fired timeout ends the attempt while the handler may still run: it settles on its own.
    const done = () => entry.handlerDone();
    void running.then(done, done);
    const timeoutMs = step.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new StepTimeoutError(timeoutMs);
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    try {
      return { ok: true, output: await Promise.race([running, timedOut]) };
    } catch (error) {
      return { ok: false, error };
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The runs to settle after a completion the handler wrote within its own transaction
 * (`ctx.completeWithin`), or undefined when it wrote none. Whether that transaction committed is
 * not known here: the outcome is recorded as usual, and a fence refusing it means it did.
 */
function writtenWithin(transactional: StepTransaction | undefined): readonly string[] | undefined {
  return transactional?.state === 'within' ? transactional.followUps : undefined;
}

/** How a handler call ended: what it returned, or what it threw (a timeout counts as thrown). */
export type HandlerResult = { readonly ok: true; readonly output: unknown } | HandlerFailure;

/** A handler call that threw (or timed out). */
export interface HandlerFailure {
  readonly ok: false;
  readonly error: unknown;
}

/**
 * What to record for a step whose handler has settled:
 * - `complete`: the output, as the JSON text to store;
 * - `snooze`: the same attempt again after `delayMs`, no attempt charged;
 * - `retry`: a retryable failure with attempts left, next attempt after `retryDelayMs`;
 * - `discard`: a permanent failure, or a retryable one on the last attempt.
 */
export type StepOutcome =
  | { readonly type: 'complete'; readonly outputJson: string }
  | { readonly type: 'snooze'; readonly delayMs: number }
  | {
      readonly type: 'retry' | 'discard';
      readonly errorKind: typeof ErrorKind.Retryable | typeof ErrorKind.Permanent;
      /** The error as it is stored: storable text, capped (see `describeThrown`). */
      readonly error: ThrownDescription;
      readonly retryDelayMs: number;
    };

/** The parts of a claimed step the outcome depends on. */
export interface OutcomeStep {
  readonly node: string;
  /** Attempts ended before this one. */
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly backoff: BackoffPolicy | null;
}

/** Options of {@link decideOutcome}. */
export interface OutcomeOptions {
  /** Largest output in bytes of UTF-8 JSON; a larger one discards the step. */
  readonly maxOutputBytes: number;
  /** Random source of the backoff jitter. */
  readonly random: () => number;
}

/**
 * Decides what a settled handler call means for its step, without touching the database. Never
 * throws, whatever the handler returned or threw: an output that cannot be stored (not JSON, too
 * large) discards the step as `permanent`, like `throw permanent(err)`; `throw snooze(d)` snoozes;
 * any other thrown value is retryable until the attempts run out. The store makes the same
 * attempts-left decision when it records the failure; it is made here too so the caller knows.
 */
export function decideOutcome(
  result: HandlerResult,
  step: OutcomeStep,
  options: OutcomeOptions,
): StepOutcome {
  let thrown: unknown;
  if (result.ok) {
    try {
      return { type: 'complete', outputJson: encodeOutput(result.output, step, options) };
    } catch (invalid) {
      thrown = invalid;
    }
  } else {
    thrown = result.error;
  }
  const kind = classify(thrown);
  if (kind.snoozeMs !== undefined) return { type: 'snooze', delayMs: kind.snoozeMs };
  const attempt = step.attempts + 1;
  const exhausted = attempt >= step.maxAttempts;
  return {
    type: kind.permanent || exhausted ? 'discard' : 'retry',
    errorKind: kind.permanent ? ErrorKind.Permanent : ErrorKind.Retryable,
    error: describeThrown(thrown),
    retryDelayMs: backoffDelay(step.backoff ?? DefaultBackoff, attempt, options.random),
  };
}

/** Whether a thrown value asks for a snooze or a permanent discard; a value whose properties throw asks for neither. */
function classify(thrown: unknown): { snoozeMs?: number; permanent: boolean } {
  try {
    if (isSnoozeError(thrown)) return { snoozeMs: thrown.delayMs, permanent: false };
    // An invalid output can never be stored, so it is permanent like an explicit permanent().
    return { permanent: isPermanentError(thrown) || thrown instanceof ValidationError };
  } catch {
    return { permanent: false };
  }
}
