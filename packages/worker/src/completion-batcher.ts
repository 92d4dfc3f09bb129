import type { Completion, WorkerStore } from '@cyclone/store-postgres';
import {
  isTransientDatabaseError,
  retryTransient,
  type RetryTransientOptions,
} from './write-retry.js';

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
