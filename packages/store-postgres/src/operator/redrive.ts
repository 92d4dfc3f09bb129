import { isCycloneError, StepState } from '@cyclone/core';
import type { RedriveQuery, RedriveResult } from '../contract/operator-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { findExhausted } from './find-exhausted.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import { retryRun } from './retry-run.js';

/**
 * Retries every discarded step that matches, as `retryRun` would, one transaction per run (each
 * taking the run's lock first). A run that refuses the retry (paused, completed, cancelled since)
 * is skipped and left as it was; a step that left `discarded` in the meantime is not counted.
 */
export async function redrive(
  db: SqlRunner,
  query: RedriveQuery = {},
): Promise<WithFollowUps<RedriveResult>> {
  const rows = await findExhausted(db, {
    discardedState: StepState.Exhausted,
    reason: query.reason ?? null,
    workflow: query.workflow ?? null,
    before: query.before ?? null,
    afterEndedAt: null,
    afterId: null,
    limit: query.limit ?? 1000,
  });
  const byRun = new Map<string, string[]>();
  for (const row of rows) byRun.set(row.run_id, [...(byRun.get(row.run_id) ?? []), row.id]);
  let retried = 0;
  const runs: string[] = [];
  const followUps: string[] = [];
  for (const [runId, stepIds] of byRun) {
    try {
      const done = await retryRun(db, runId, { stepIds });
      retried += done.value.retried;
      followUps.push(...done.followUps);
      if (done.value.retried > 0) runs.push(runId);
    } catch (error) {
      // A refused run keeps its discards; the others are still redriven.
      if (!isCycloneError(error) || error.code === 'DATABASE_QUERY_FAILED') throw error;
    }
  }
  return withFollowUps({ retried, runs }, followUps);
}
