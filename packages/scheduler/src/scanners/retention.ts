import type { Logger } from 'pino';
import type { MaintenanceStore } from '@cyclone/store-postgres';
import type { Scanner } from './scanner.js';

/**
 * Deletes finished runs that ended longer ago than the retention, with their steps, events,
 * signals and settlement markers, a bounded batch at a time (up to `batches` batches a pass), so
 * the tables do not grow without bound and no pass holds locks for long.
 */
export class RetentionScanner implements Scanner {
  readonly name = 'retention';

  constructor(
    private readonly store: Pick<MaintenanceStore, 'deleteFinishedRuns'>,
    readonly interval: number,
    private readonly retentionMs: number,
    private readonly logger: Logger,
    private readonly batchSize = 500,
    private readonly batches = 10,
  ) {}

  /** Deletes up to `batches` batches of expired runs. */
  async runOnce(): Promise<void> {
    let deleted = 0;
    for (let i = 0; i < this.batches; i++) {
      const n = await this.store.deleteFinishedRuns(this.retentionMs, this.batchSize);
      deleted += n;
      if (n < this.batchSize) break;
    }
    if (deleted > 0) {
      this.logger.info(
        { deleted, retentionMs: this.retentionMs },
        'deleted finished runs past the retention',
      );
    }
  }
}
