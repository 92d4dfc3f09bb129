import { EventType, StepState, StepTrigger, stepChange } from '@cyclone/core';
import type { Completion } from '../contract/worker-store.js';
import type { Executor } from '../db/executor.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import { prefixed, singleFromChangeParams } from '../tables/transitions/change-params.js';
import { afterCompletion } from '../tables/steps/after-completion.js';
import {
  acceptedCompletions,
  completeSteps,
  completionsInput,
  type CompleteStepsParams,
} from '../tables/steps/complete-steps.js';

/** The parts of the completion statement's parameters that come from core's table. */
const changes: Omit<CompleteStepsParams, 'stepIds' | 'claimTokens' | 'outputs'> = {
  ...afterCompletion,
  ...prefixed(
    'complete',
    singleFromChangeParams(stepChange(StepTrigger.Complete, StepState.Completed)),
  ),
  countAttempt: true,
  cached: false,
  timedOut: false,
  completeEventType: EventType.StepCompleted,
  reportEnded: false,
};

/**
 * Records handler successes in one statement, which also marks the runs that need settling in
 * the settlement outbox: they are its follow-ups, settled once it committed (a settlement that
 * fails is not an error of the completion, which stands: the marker stays, and the scheduler's
 * `settle-pending` scanner settles the run). `value` holds the ids whose completion was accepted;
 * the others were fenced out (their claim had moved on) and nothing of them was written. Run
 * again when Postgres aborts it for a deadlock: on the pool it is a transaction of its own.
 */
export function completeAll(
  db: Executor,
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
  db: Executor,
  completions: readonly Completion[],
): Promise<WithFollowUps<Set<string>>> {
  const rows = await completeSteps(db, { ...changes, ...completionsInput(completions) });
  const marked = new Set<string>();
  for (const row of rows) if (row.what === 'settle' && row.id) marked.add(row.id);
  return withFollowUps(acceptedCompletions(completions, rows), marked);
}
