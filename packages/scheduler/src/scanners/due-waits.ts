import type { Logger } from 'pino';
import type { MaintenanceStore } from '@cyclone/store-postgres';
import type { Scanner } from './scanner.js';

/**
 * Fires due timers (`waiting_timer -> completed`, output `{ firedAt }`) and lapses signal waits
 * whose `maxWait` passed (`waiting_signal -> completed` with `timedOut: true`, a `wait_lapsed`
 * event), in bounded batches through the partial indexes on the due times. Due means due by the
 * database clock, so a timer never fires early, whatever the scheduler's clock says.
 */
export class DueWaitsScanner implements Scanner {
  readonly name = 'due-waits';

  constructor(
    private readonly store: Pick<MaintenanceStore, 'fireDueWaits'>,
    readonly interval: number,
    private readonly logger: Logger,
    private readonly batchSize = 100,
  ) {}

  /** Fires the due timers and lapses the due max waits. */
  async runOnce(): Promise<void> {
    const { fired, lapsed, childrenLapsed } = await this.store.fireDueWaits(this.batchSize);
    if (fired > 0 || lapsed > 0 || childrenLapsed > 0) {
      this.logger.info({ fired, lapsed, childrenLapsed }, 'settled due waits');
    }
  }
}
