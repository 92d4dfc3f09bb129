import type { Logger } from 'pino';
import type { MaintenanceStore } from '@cyclone/store-postgres';
import type { Scanner } from './scanner.js';

/**
 * The recovery sweep: running steps whose lease expired (their worker died or stalled) go back to
 * `available` with `reclaims` + 1, no attempt charged and no backoff; past the run's
 * `maxReclaims` they are discarded with `reclaim_limit`.
 */
export class ReclaimExpiredLeasesScanner implements Scanner {
  readonly name = 'reclaim-expired-leases';

  constructor(
    private readonly store: Pick<MaintenanceStore, 'reclaimExpired'>,
    readonly interval: number,
    private readonly logger: Logger,
  ) {}

  /** Reclaims (or dead-letters) the steps whose lease expired. */
  async runOnce(): Promise<void> {
    const reclaimed = await this.store.reclaimExpired();
    if (reclaimed > 0) this.logger.info({ reclaimed }, 'reclaimed steps with expired leases');
  }
}
