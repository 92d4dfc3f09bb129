import type { StepChange } from '@cyclone/core';
import type { Executor } from '../db/executor.js';
import { singleFrom } from '../tables/changes.js';
import { afterCompletion } from '../tables/steps/after-completion.js';
import { completeSteps } from '../tables/steps/complete-steps.js';

/** A wait node to complete and the output it completes with. */
export interface WaitCompletion {
  readonly stepId: string;
  /** The output, already encoded as JSON text. */
  readonly outputJson: string;
}

/** How a batch of wait nodes completes. */
export interface WaitCompletionChange {
  /** `signal_consumed`, `wait_lapsed` or `timer_fired`, to `completed`. */
  readonly change: StepChange;
  /** The completed steps' `timed_out` (a lapse). */
  readonly timedOut: boolean;
  /** Their events' type. */
  readonly eventType: string;
}

/** What completing wait nodes did. */
export interface CompletedWaits {
  /** The steps that completed (the others had moved on and were left alone). */
  readonly completed: ReadonlySet<string>;
  /** The runs the completion marked for settlement (a dependent that is a wait node, ...). */
  readonly toSettle: ReadonlySet<string>;
}

/**
 * Completes wait nodes through the completion statement a handler's success uses, so that a wait
 * counts off its run's open steps, promotes its dependents and may complete the run exactly as a
 * task does; only the attempt is not counted (no worker ran it) and no claim fences it. Runs in
 * the transaction that holds the run's lock.
 */
export async function completeWaits(
  db: Executor,
  how: WaitCompletionChange,
  completions: readonly WaitCompletion[],
): Promise<CompletedWaits> {
  const completed = new Set<string>();
  const toSettle = new Set<string>();
  if (completions.length === 0) return { completed, toSettle };
  const rows = await completeSteps(db, {
    ...afterCompletion,
    countAttempt: false,
    timedOut: how.timedOut,
    completeEventType: how.eventType,
    completeTo: how.change.to,
    completeFrom: how.change.from,
    completeTrigger: how.change.trigger,
    completeEventFrom: singleFrom(how.change),
    stepIds: completions.map((c) => c.stepId),
    claimTokens: completions.map(() => null),
    outputs: completions.map((c) => c.outputJson),
  });
  for (const row of rows) {
    if (row.what === 'done' && row.id) completed.add(row.id);
    else if (row.what === 'settle' && row.id) toSettle.add(row.id);
  }
  return { completed, toSettle };
}
