import { EventType, StepState, StepTrigger, stepChange } from '@cyclone/core';
import type { Completion } from '../contract/worker-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import {
  acceptedCompletions,
  completeSteps,
  completionParams,
  completionsInput,
} from '../tables/steps/complete-steps.js';

/** A handler's success: `running -> completed` by `complete`, the attempt counted, no event row. */
const handlerSuccess = completionParams({
  change: stepChange(StepTrigger.Complete, StepState.Completed),
  eventType: EventType.StepCompleted,
  countAttempt: true,
  timedOut: false,
  cached: false,
  reportEnded: false,
});

/**
 * Records handler successes in one statement, which also marks the runs that need settling in
 * the settlement outbox: they are its follow-ups, settled once it committed (a settlement that
 * fails is not an error of the completion, which stands: the marker stays, and the scheduler's
 * `settle-pending` scanner settles the run). `value` holds the ids whose completion was accepted;
 * the others were fenced out (their claim had moved on) and nothing of them was written. Run
 * again when Postgres aborts it for a deadlock: on the pool it is a transaction of its own.
 */
export function completeAll(
  db: SqlRunner,
  completions: readonly Completion[],
): Promise<WithFollowUps<Set<string>>> {
  if (completions.length === 0) return Promise.resolve(withFollowUps(new Set<string>()));
  return db.retrying((exec) => recordCompletions(exec, completions));
}

/**
 * The completion statement itself, once, on whatever connection `db` runs: the pool, or a
 * transaction that also carries the handler's own writes (`completeInTransaction`), where a
 * deadlock aborts the whole transaction and a statement alone cannot be run again.
 */
export async function recordCompletions(
  db: SqlRunner,
  completions: readonly Completion[],
): Promise<WithFollowUps<Set<string>>> {
  const rows = await completeSteps(db, { ...handlerSuccess, ...completionsInput(completions) });
  const marked = new Set<string>();
  for (const row of rows) if (row.what === 'settle' && row.id) marked.add(row.id);
  return withFollowUps(acceptedCompletions(completions, rows), marked);
}
