import type { Completion, WorkerStore } from '@cyclone/store-postgres';
import {
  isTransientDatabaseError,
  retryTransient,
  type RetryTransientOptions,
} from './write-retry.js';

interface Pending {
  readonly completion: Completion;
  readonly resolve: (accepted: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Records successes in batches: while a batch is being written, the next one gathers, so under
 * load each round trip carries many completions, and when idle a single completion is written at
 * once. Up to `parallel` batches are written at a time, on separate connections, so the database
 * can use more than one core. A batch that meets a transient database error is written again
 * (see {@link retryTransient}). A caller learns whether its completion was accepted or fenced out.
 */
export class BatchCompleter {
  private queue: Pending[] = [];
  private readonly drains = new Set<Promise<void>>();

  constructor(
    private readonly store: Pick<WorkerStore, 'complete'>,
    private readonly maxBatch: number,
    private readonly retry: RetryTransientOptions,
    private readonly parallel = 2,
  ) {}

  /** Queues a completion; resolves with whether it was accepted, rejects when it could not be written. */
  complete(completion: Completion): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ completion, resolve, reject });
      if (this.drains.size < this.parallel) {
        const drain: Promise<void> = this.drain().finally(() => this.drains.delete(drain));
        this.drains.add(drain);
      }
    });
  }

  private async drain(): Promise<void> {
    // Let the completions of this turn of the event loop join the first batch.
    await Promise.resolve();
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
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

  private async write(batch: readonly Pending[]): Promise<void> {
    const completions = batch.map((p) => p.completion);
    const accepted = await retryTransient(() => this.store.complete(completions), this.retry);
    for (const p of batch) p.resolve(accepted.has(p.completion.stepId));
  }

  /** Resolves once everything queued so far is written. */
  async idle(): Promise<void> {
    while (this.drains.size > 0) await Promise.all([...this.drains]);
  }
}
