import type { Logger } from 'pino';
import type { MaintenanceStore } from '@cyclone/store-postgres';
import type { Scanner } from './scanner.js';

/** What the unserved-kinds scanner needs besides the store. */
export interface UnservedKindsSettings {
  /** Recorded as the claimant of the steps it fails. */
  readonly claimant: string;
  /** How long a step may be available with no live worker for its kind. */
  readonly graceMs: number;
  /** A worker unseen for longer is gone. */
  readonly livenessMs: number;
}

/**
 * Discards available steps whose kind no live worker handles once they waited longer than the
 * grace period (error kind `permanent`, naming the kind), so a typo in a kind fails loudly instead
 * of hanging. Nothing is discarded while no worker is live at all.
 */
export class UnservedKindsScanner implements Scanner {
  readonly name = 'unserved-kinds';

  constructor(
    private readonly store: Pick<MaintenanceStore, 'failUnservedSteps'>,
    readonly interval: number,
    private readonly settings: UnservedKindsSettings,
    private readonly logger: Logger,
  ) {}

  /** Fails the steps no live worker can run. */
  async runOnce(): Promise<void> {
    const failed = await this.store.failUnservedSteps(this.settings);
    if (failed > 0)
      this.logger.warn({ failed }, 'discarded steps whose kind no live worker handles');
  }
}
