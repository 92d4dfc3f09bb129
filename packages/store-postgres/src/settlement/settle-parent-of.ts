import type { Executor } from '../db/executor.js';
import { TerminalRunStates } from '../tables/terminal-states.js';
import { settleChain } from './settle-follow-ups.js';
import { findEndedParent } from '../tables/runs/find-ended-parent.js';

/**
 * After a transaction that may have ended a child run (a signal, a timer, a resume), settles its
 * parent at once rather than at the next `settle-pending` pass: the run's end wrote the parent to
 * the outbox, and this reads it back. Best effort, like every settlement after a commit.
 */
export async function settleParentOf(db: Executor, runId: string): Promise<void> {
  try {
    const parent = await findEndedParent(db, { runId, terminalStates: TerminalRunStates });
    if (parent !== undefined) await settleChain(db, [parent]);
  } catch {
    // The marker stays in the outbox for settle-pending.
  }
}
