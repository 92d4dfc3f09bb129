import type { Completion, PostgresStore } from '@cyclone/store-postgres';

interface Pending {
  readonly completion: Completion;
  readonly resolve: (accepted: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Records successes in batches: while one batch is being written, the next one gathers, so under
 * load each round trip carries many completions and when idle a single completion is written at
 * once. A caller learns whether its completion was accepted or fenced out.
 */
export class BatchCompleter {
  private queue: Pending[] = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly store: PostgresStore,
    private readonly maxBatch: number,
  ) {}

  complete(completion: Completion): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ completion, resolve, reject });
      this.flushing ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const accepted = await this.store.complete(batch.map((p) => p.completion));
          for (const p of batch) p.resolve(accepted.has(p.completion.stepId));
        } catch (error) {
          for (const p of batch) p.reject(error);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }

  /** Resolves once everything queued so far is written. */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }
}
