import { StepState } from '@cyclone/core';
import type { SubmittedRun } from '../contract/run-store.js';
import type { Executor } from '../db/executor.js';
import { clearSettlement } from '../tables/outbox/clear-settlement.js';
import { settleChain } from './settle-follow-ups.js';
import { settleRun } from './settle-run.js';
import type { NewRun } from '../contract/new-run.js';

/**
 * Starts the child runs of child nodes that a submit inserted waiting (those with no
 * dependencies). The insert wrote each such run to the settlement outbox; settling it starts the
 * children. On the caller's own transaction this happens inside it, so the child runs commit or
 * roll back with the submit; on the pool each run settles in its own transaction right after, and
 * a crash in between leaves the marker for `settle-pending`.
 */
export async function startSubmittedChildren(
  db: Executor,
  runs: readonly NewRun[],
  submitted: readonly SubmittedRun[],
  inCallersTransaction: boolean,
): Promise<void> {
  const waiting = new Set(
    runs.filter((r) => r.steps.some((s) => s.state === StepState.WaitingChild)).map((r) => r.id),
  );
  const created = submitted.filter((s) => s.created && waiting.has(s.runId)).map((s) => s.runId);
  if (created.length === 0) return;
  if (!inCallersTransaction) {
    await settleChain(db, created);
    return;
  }
  for (const runId of created) {
    await settleRun(db, runId);
    await clearSettlement(db, { runId });
  }
}
