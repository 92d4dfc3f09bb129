import type { Logger } from 'pino';
import type { MaintenanceStore } from '@cyclone/store-postgres';
import type { Scanner } from './scanner.js';

/**
 * Keeps the period partitions of runs, steps and events: creates the coming periods' partitions
 * ahead of their runs, and drops a past period's partitions whole once every run of it ended
 * longer ago than the retention, so a period leaves without a row-by-row delete or the vacuum
 * after it. It runs whatever the `retention`: with history kept (`retention: false`), it creates
 * partitions and drops none that holds a run.
 *
 * Its first pass is one interval after the scheduler starts, not at the start: the partitions are
 * made days ahead, so nothing waits for them, and a start (a deploy, a failover) is not held up by
 * DDL that waits for the table's lock while the leader lease wants renewing.
 */
export class PeriodPartitionsScanner implements Scanner {
  readonly name = 'period-partitions';
  private started = false;

  constructor(
    private readonly store: Pick<MaintenanceStore, 'maintainPeriodPartitions'>,
    readonly interval: number,
    private readonly retentionMs: number | undefined,
    private readonly logger: Logger,
  ) {}

  /** Creates and drops what is due; what a busy table deferred is tried at the next pass. */
  async runOnce(): Promise<void> {
    if (!this.started) {
      this.started = true;
      return;
    }
    const { created, dropped, compacted, deferred } = await this.store.maintainPeriodPartitions(
      this.retentionMs === undefined ? {} : { retentionMs: this.retentionMs },
    );
    if (created.length > 0 || dropped.length > 0 || compacted.length > 0) {
      this.logger.info({ created, dropped, compacted }, 'kept the period partitions');
    }
    if (deferred.length > 0) {
      this.logger.warn({ deferred }, 'left period partitions for a later pass');
    }
  }
}
