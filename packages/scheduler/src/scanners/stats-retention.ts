import type { Logger } from 'pino';
import type { MaintenanceStore } from '@cyclone/store-postgres';
import type { Scanner } from './scanner.js';

/**
 * Deletes the overview's per-minute counts (`cyclone_stats_minutes`) older than `keepMs`, a
 * bounded batch at a time. It runs whatever the runs' `retention`: the counts are the engine's
 * own bookkeeping, a few rows a minute, and nothing reads them beyond the longest window served.
 */
export class StatsRetentionScanner implements Scanner {
  readonly name = 'stats-retention';

  constructor(
    private readonly store: Pick<MaintenanceStore, 'deleteOldStatsMinutes'>,
    readonly interval: number,
    private readonly keepMs: number,
    private readonly logger: Logger,
    private readonly batchSize = 5_000,
    private readonly batches = 10,
  ) {}

  /** Deletes up to `batches` batches of old minutes. */
  async runOnce(): Promise<void> {
    let deleted = 0;
    for (let i = 0; i < this.batches; i++) {
      const n = await this.store.deleteOldStatsMinutes(this.keepMs, this.batchSize);
      deleted += n;
      if (n < this.batchSize) break;
    }
    if (deleted > 0) this.logger.debug({ deleted }, 'deleted per-minute counts past their keep');
  }
}
