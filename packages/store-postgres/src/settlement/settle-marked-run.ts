import type { Executor } from '../db/executor.js';
import { clearSettlement } from '../tables/outbox/clear-settlement.js';
import { settleRun } from './settle-run.js';

/**
 * Settles a run of the settlement outbox and clears its marker, in one transaction: the marker
 * goes only with the settlement it stands for. Locks the run before the marker, like the
 * completion statement (which updates the run before it inserts the marker).
 */
export function settleMarkedRun(db: Executor, runId: string): Promise<string[]> {
  return db.transaction(async (tx) => {
    const followUps = await settleRun(tx, runId);
    await clearSettlement(tx, { runId });
    return followUps;
  });
}
