import type { Logger } from 'pino';
import type { MaintenanceStore } from '@cyclone/store-postgres';
import type { Scanner } from './scanner.js';

/**
 * Re-drives the settlement outbox: a run whose steps ended in a statement that marked it for
 * settlement, while the settlement itself did not happen (the completing worker crashed or lost
 * its connection in between), is settled here, so nothing is left waiting for a settlement that
 * never comes.
 */
export class SettlePendingScanner implements Scanner {
  readonly name = 'settle-pending';

  constructor(
    private readonly store: Pick<MaintenanceStore, 'settlePending'>,
    readonly interval: number,
    private readonly logger: Logger,
  ) {}

  /** Settles the runs left in the outbox. */
  async runOnce(): Promise<void> {
    const settled = await this.store.settlePending();
    if (settled > 0) this.logger.info({ settled }, 'settled runs left in the settlement outbox');
  }
}
