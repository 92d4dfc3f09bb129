import type { NewRun } from '../contract/new-run.js';
import type { SubmittedRun } from '../contract/run-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { settleInTransaction } from '../settlement/settle-in-transaction.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import { insertNewRuns, runsSettledAtSubmit } from '../tables/runs/insert-new-runs.js';

/**
 * Inserts runs with all their steps in one statement (see `insertNewRuns`), then starts the child
 * runs of child nodes that wait from the start and looks up the cached tasks that start the run. On the caller's own transaction that happens
 * inside it, so the child runs commit or roll back with the submit; on the pool those runs are
 * follow-ups, settled once the insert committed (a crash in between leaves their markers for
 * `settle-pending`).
 */
export async function submit(
  db: SqlRunner,
  runs: readonly NewRun[],
  inCallersTransaction: boolean,
): Promise<WithFollowUps<SubmittedRun[]>> {
  const submitted = await insertNewRuns(db, runs);
  const starting = runsSettledAtSubmit(runs, submitted);
  if (!inCallersTransaction) return withFollowUps(submitted, starting);
  for (const runId of starting) await settleInTransaction(db, runId);
  return withFollowUps(submitted);
}
