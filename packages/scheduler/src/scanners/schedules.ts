import type { Logger } from 'pino';
import type { WorkflowDefinition } from '@cyclone/core';
import type { MaintenanceStore } from '@cyclone/store-postgres';
import type { Scanner } from './scanner.js';

/**
 * Fires cron schedules. Each pass reads the database's clock once and hands it to the store with
 * the leader lease it runs under, which fires every due enabled schedule (FOR UPDATE SKIP LOCKED)
 * in its own transaction: the fires table's key (schedule, tick) and the guarded `next_run_at`
 * make a second scheduler's attempt at a tick a no-op, so a tick starts at most one run whatever
 * the timing. Ticks that fell due while a scheduler led fire; the ticks a downtime of the lease
 * missed follow each schedule's catch-up policy (decision 27).
 */
export class SchedulesScanner implements Scanner {
  readonly name = 'schedules';
  private readonly workflows: ReadonlyMap<string, WorkflowDefinition>;

  constructor(
    private readonly store: Pick<MaintenanceStore, 'databaseNow' | 'fireDueSchedules'>,
    readonly interval: number,
    /** The leader lease the scheduler runs under: its gaps are the downtimes. */
    private readonly lease: string,
    workflows: readonly WorkflowDefinition[],
    private readonly logger: Logger,
    /** The clock of a pass; the database's unless a test controls it. */
    private readonly now: () => Promise<Date> = () => store.databaseNow(),
  ) {
    this.workflows = new Map(workflows.map((w) => [w.name, w]));
  }

  /** Fires the due ticks of every enabled schedule. */
  async runOnce(): Promise<void> {
    const now = await this.now();
    const result = await this.store.fireDueSchedules({
      now,
      lease: this.lease,
      workflows: this.workflows,
    });
    if (result.schedules > 0) {
      const log = result.failed > 0 ? this.logger.warn : this.logger.info;
      log.call(this.logger, { ...result, now }, 'fired due schedules');
    }
  }
}
