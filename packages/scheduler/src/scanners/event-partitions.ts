import type { Logger } from 'pino';
import type { MaintenanceStore } from '@cyclone/store-postgres';
import type { Scanner } from './scanner.js';

/**
 * Keeps the period partitions of `cyclone_events`: creates the coming periods' partitions ahead
 * of their runs, and drops a past period's partition whole once retention has deleted its runs,
 * so the events of a period leave without a row-by-row delete or the vacuum after it. It runs
 * whatever the `retention`: with history kept, no run is deleted and no period is dropped.
 *
 * Its first pass is one interval after the scheduler starts, not at the start: the partitions are
 * made days ahead, so nothing waits for them, and a start (a deploy, a failover) is not held up by
 * DDL that waits for the table's lock while the leader lease wants renewing.
 */
export class EventPartitionsScanner implements Scanner {
  readonly name = 'event-partitions';
  private started = false;

  constructor(
    private readonly store: Pick<MaintenanceStore, 'maintainEventPartitions'>,
    readonly interval: number,
    private readonly logger: Logger,
  ) {}

  /** Creates and drops what is due; what a busy table deferred is tried at the next pass. */
  async runOnce(): Promise<void> {
    if (!this.started) {
      this.started = true;
      return;
    }
    const { created, dropped, compacted, deferred } = await this.store.maintainEventPartitions();
    if (created.length > 0 || dropped.length > 0 || compacted.length > 0) {
      this.logger.info({ created, dropped, compacted }, 'kept the event partitions');
    }
    if (deferred.length > 0) {
      this.logger.warn({ deferred }, 'left event partitions for a later pass');
    }
  }
}
