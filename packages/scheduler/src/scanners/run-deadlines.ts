import type { Logger } from 'pino';
import type { MaintenanceStore } from '@cyclone/store-postgres';
import type { Scanner } from './scanner.js';

/**
 * Enforces `runDeadline`: a running run past its deadline has its open, unpaused steps discarded
 * (error kind `deadline`, running handlers aborted by notification) and fails once. Paused runs
 * are left alone. Bounded per pass; a second pass over the same run does nothing.
 */
export class RunDeadlinesScanner implements Scanner {
  readonly name = 'run-deadlines';

  constructor(
    private readonly store: Pick<MaintenanceStore, 'expireRunDeadlines'>,
    readonly interval: number,
    private readonly logger: Logger,
    private readonly limit = 100,
  ) {}

  /** Fails the runs past their deadline. */
  async runOnce(): Promise<void> {
    const failed = await this.store.expireRunDeadlines(this.limit);
    if (failed > 0) this.logger.info({ failed }, 'failed runs past their deadline');
  }
}
