import { StepState, StepTrigger, stepChange } from '@cyclone/core';
import type { Completion } from '../contract/worker-store.js';
import type { Executor } from '../db/executor.js';
import { singleFrom } from '../tables/changes.js';
import { settleChain } from '../settlement/settle-follow-ups.js';
import { afterCompletion } from '../tables/steps/after-completion.js';
import { completeSteps, type CompleteStepsParams } from '../tables/steps/complete-steps.js';

const complete = stepChange(StepTrigger.Complete, StepState.Completed);

/** The parts of the completion statement's parameters that come from core's table. */
const changes: Omit<CompleteStepsParams, 'stepIds' | 'claimTokens' | 'outputs'> = {
  ...afterCompletion,
  countAttempt: true,
  timedOut: false,
  completeEventType: 'step_completed',
  completeTo: complete.to,
  completeFrom: complete.from,
  completeTrigger: complete.trigger,
  completeEventFrom: singleFrom(complete),
};

/**
 * Records handler successes in one statement, which also marks the runs that need settling in
 * the settlement outbox; then settles those runs, each in its own transaction that clears its
 * marker. Returns the ids whose completion was accepted; the others were fenced out (their claim
 * had moved on) and nothing of them was written.
 *
 * A settlement that fails (a lost connection, a crash) is not an error of the completion, which
 * has committed: its marker stays, and the scheduler's `settle-pending` scanner settles the run.
 */
export async function completeAll(
  db: Executor,
  completions: readonly Completion[],
): Promise<Set<string>> {
  if (completions.length === 0) return new Set();
  const rows = await db.retrying((exec) =>
    completeSteps(exec, {
      ...changes,
      stepIds: completions.map((c) => c.stepId),
      claimTokens: completions.map((c) => c.claimToken),
      outputs: completions.map((c) => c.outputJson),
    }),
  );
  const accepted = new Set<string>();
  const toSettle = new Set<string>();
  for (const row of rows) {
    if (row.what === 'done' && row.id) accepted.add(row.id);
    else if (row.what === 'settle' && row.id) toSettle.add(row.id);
  }
  // A settlement that fails is left in the outbox for settle-pending; the completions stand.
  await settleChain(db, toSettle);
  return accepted;
}
