import type pg from 'pg';
import type { Logger } from 'pino';
import { StepFencedError } from '@cyclone/core';
import type { ClaimedStep, HeldStep, Queryable, WorkerStore } from '@cyclone/store-postgres';
import { encodeOutput, type OutputCheck } from './output-check.js';
import type { StepMetrics } from './step-metrics.js';
import { traceTransaction } from './tracing.js';

/** The claim a transactional completion is fenced by. */
function held(step: ClaimedStep): HeldStep {
  return { stepId: step.id, claimToken: step.claimToken };
}

/** What every step's {@link StepTransaction} is wired to: one per worker. */
export interface StepTransactionDeps {
  readonly store: Pick<WorkerStore, 'completeInTransaction' | 'completeWithin'>;
  readonly outcome: { readonly maxOutputBytes: number };
  readonly metrics: StepMetrics;
  /** The node's output schema check, made before the completion is written. */
  readonly outputCheck: OutputCheck;
}

/**
 * Where an attempt's transactional completion stands:
 * - `open`: `ctx.transaction`'s work runs now;
 * - `committed`: its transaction committed, the step is completed, nothing is left to record;
 * - `within`: `ctx.completeWithin` wrote the completion in the application's transaction, whose
 *   fate the worker does not see (see {@link StepTransaction.followUps}).
 */
export type StepTransactionState = 'open' | 'committed' | 'within';

/**
 * One attempt's transactional completion, made on the first `ctx.transaction` or
 * `ctx.completeWithin` (most handlers never call either). The executor reads its state once the
 * handler settled: a committed transaction leaves nothing to record.
 */
export class StepTransaction {
  state: StepTransactionState | undefined;
  /** Runs the completion written within the application's transaction left to settle. */
  followUps: readonly string[] = [];

  constructor(
    private readonly step: ClaimedStep,
    private readonly deps: StepTransactionDeps,
    private readonly log: () => Logger,
  ) {}

  /** `ctx.transaction(fn)`: see `StepContext.transaction`. */
  async transaction<T>(fn: (tx: pg.PoolClient) => Promise<T> | T): Promise<T> {
    this.refuseSecond('transaction');
    const { step, deps } = this;
    this.state = 'open';
    let outcome;
    try {
      outcome = await traceTransaction(step.id, () =>
        deps.store.completeInTransaction(held(step), async (tx) => {
          const value = await fn(tx);
          // Refused before the completion is written: the throw rolls back fn's writes too.
          await deps.outputCheck.assertFits(step, value);
          return { value, outputJson: encodeOutput(value, step, deps.outcome) };
        }),
      );
    } catch (error) {
      // Rolled back (or, on a connection lost at COMMIT, unknown: the fence decides any later
      // write): the handler may try again, or throw, and the attempt fails like any other.
      this.state = undefined;
      throw error;
    }
    if (!outcome.completed) {
      this.state = undefined;
      deps.metrics.dropped(step.kind);
      this.log().warn(
        { attempt: step.attempts + 1 },
        "transactional completion refused: the claim moved on; the handler's transaction rolled back",
      );
      throw new StepFencedError(step.id, step.runId);
    }
    this.state = 'committed';
    deps.metrics.completed(step.kind);
    return outcome.value;
  }

  /** `ctx.completeWithin(tx, output)`: see `StepContext.completeWithin`. */
  async completeWithin<T>(tx: Queryable, output: T): Promise<T> {
    this.refuseSecond('completeWithin');
    const { step, deps } = this;
    await deps.outputCheck.assertFits(step, output);
    const outputJson = encodeOutput(output, step, deps.outcome);
    const written = await deps.store.completeWithin(tx, { ...held(step), outputJson });
    if (!written.accepted) throw new StepFencedError(step.id, step.runId);
    this.state = 'within';
    this.followUps = written.followUps;
    return output;
  }

  /** One transactional completion an attempt: a second would complete a completed step. */
  private refuseSecond(called: string): void {
    if (this.state === undefined) return;
    throw new Error(
      `ctx.${called} called for step ${this.step.id} after ${
        this.state === 'open'
          ? 'ctx.transaction, which is still running'
          : 'its completion was written in a transaction'
      }: an attempt completes its step once`,
    );
  }
}
