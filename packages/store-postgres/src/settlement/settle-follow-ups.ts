import type { Executor } from '../db/executor.js';
import { settleMarkedRun } from './settle-marked-run.js';

/** Most runs one chain settles; the rest stay in the outbox for `settle-pending`. */
const ChainLimit = 100;

/**
 * Settles runs of the settlement outbox one after another, each in its own transaction, and then
 * the runs those settlements wrote to the outbox in turn (a child run just started, the parent of
 * a run that ended), so a child's end reaches its parent at once. Best effort: a settlement that
 * fails leaves its marker, and the scheduler's `settle-pending` scanner takes it over.
 */
export async function settleChain(db: Executor, runIds: Iterable<string>): Promise<void> {
  const queue = [...new Set(runIds)];
  for (let i = 0; i < queue.length && i < ChainLimit; i++) {
    try {
      for (const next of await settleMarkedRun(db, queue[i]!)) {
        if (!queue.includes(next)) queue.push(next);
      }
    } catch {
      // Left in the outbox for settle-pending.
    }
  }
}
