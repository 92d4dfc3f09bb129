import type { Logger } from 'pino';
import type { MaintenanceStore } from '@cyclone/store-postgres';
import type { Scanner } from './scanner.js';

/**
 * Deletes the result cache's expired entries, a bounded batch at a time (up to `batches` batches
 * a pass): an expired entry serves no lookup, so keeping it only costs space. Runs whatever the
 * run retention, which decides how long history is kept, not cached outputs.
 */
export class ExpiredCacheScanner implements Scanner {
  readonly name = 'expired-cache';

  constructor(
    private readonly store: Pick<MaintenanceStore, 'deleteExpiredCache'>,
    readonly interval: number,
    private readonly logger: Logger,
    private readonly batchSize = 1000,
    private readonly batches = 10,
  ) {}

  /** Deletes up to `batches` batches of expired entries. */
  async runOnce(): Promise<void> {
    let deleted = 0;
    for (let i = 0; i < this.batches; i++) {
      const n = await this.store.deleteExpiredCache(this.batchSize);
      deleted += n;
      if (n < this.batchSize) break;
    }
    if (deleted > 0) this.logger.debug({ deleted }, 'deleted expired cache entries');
  }
}
