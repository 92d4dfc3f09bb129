import type { Logger } from 'pino';
import type { ClaimedStep } from '@cyclone/store-postgres';
import { StepTimeoutError } from './errors.js';
import { InFlight, InFlightSteps } from './in-flight.js';
import { decideOutcome, type HandlerResult, type OutcomeOptions } from './outcome.js';
import type { Recorder } from './recorder.js';
import { HandlerContext, type Handler } from './step-context.js';
import type { StepTransaction, StepTransactionDeps } from './step-transaction.js';
import { loggableError } from './log-error.js';
import type { OutputCheck } from './output-check.js';
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
 * Runs handlers: builds each step's context, enforces its timeout, aborts it when told, and hands
 * the settled result to the recorder. A slot is freed as soon as the handler returns, so recording
 * happens beside the next handlers, not in their way.
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
