import type { Logger } from 'pino';
import type { WorkerStore } from '@cyclone/store-postgres';
import { loggableError } from './log-error.js';
import type { MinuteCounts } from './minute-counts.js';

/** How often a worker adds its counts to `cyclone_stats_minutes`. */
export const StatsFlushMs = 5_000;

/**
 * Writes the worker's {@link MinuteCounts} every {@link StatsFlushMs} and once more at stop, one
 * upsert each (none when nothing was counted). The counts land in the minute of the flush by the
 * database clock, so a count may show in the minute after the one it happened in, never on a
 * worker's skewed clock. A flush that fails keeps its counts for the next one.
 */
export class StatsFlusher {
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly store: Pick<WorkerStore, 'addStatsMinutes'>,
    private readonly counts: MinuteCounts,
    private readonly logger: Logger,
    private readonly intervalMs = StatsFlushMs,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left. Never rejects. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing;
    await this.flush();
  }

  /** Writes what was counted since the last flush; one flush at a time. Never rejects. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    const taken = this.counts.take();
    if (taken.length === 0) return Promise.resolve();
    this.flushing = this.store
      .addStatsMinutes(taken)
      .catch((error: unknown) => {
        this.counts.restore(taken);
        this.logger.warn(
          { error: loggableError(error) },
          'writing the per-minute counts failed; they go with the next flush',
        );
      })
      .finally(() => {
        this.flushing = undefined;
      });
    return this.flushing;
  }
}
