import type { StepChange } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import {
  acceptedCompletions,
  completeSteps,
  completionParams,
  completionsInput,
} from '../tables/steps/complete-steps.js';

/** A node to complete and the output it completes with. */
export interface NodeCompletion {
  readonly stepId: string;
  /** The output, already encoded as JSON text. */
  readonly outputJson: string;
  /**
   * The claim token the step holds, if any (a task reopened after it ran); null for a node no
   * worker ever claimed. @defaultValue null
   */
  readonly claimToken?: string | null;
}

/** How a batch of nodes no worker runs completes (a wait, a fan-out or a child node, a cache hit). */
export interface NodeCompletionChange {
  /** `signal_consumed`, `wait_lapsed`, `timer_fired`, `child_completed`, `fan_out_completed`. */
  readonly change: StepChange;
  /** The completed steps' `timed_out` (a lapse). */
  readonly timedOut: boolean;
  /** The completed steps' `cached` (a result cache hit). @defaultValue false */
  readonly cached?: boolean;
  /** Their events' type. */
  readonly eventType: string;
}

/** What completing nodes did. */
export interface NodeCompletions {
  /** The steps that completed (the others had moved on and were left alone). */
  readonly completed: ReadonlySet<string>;
  /** The runs the completion wrote to the settlement outbox (a dependent to move, a parent). */
  readonly marked: ReadonlySet<string>;
  /** The runs the completion completed. */
  readonly ended: ReadonlySet<string>;
}

/**
 * Completes nodes that no worker runs through the completion statement a handler's success uses,
 * so that a node counts off its run's open steps, promotes its dependents and may complete the run
 * exactly as a task does; only the attempt is not counted and no claim fences it (the run's lock
 * does). Runs in the transaction that holds the run's lock.
 */
export async function completeNodes(
  db: SqlRunner,
  how: NodeCompletionChange,
  completions: readonly NodeCompletion[],
): Promise<NodeCompletions> {
  const marked = new Set<string>();
  const ended = new Set<string>();
  if (completions.length === 0) return { completed: new Set(), marked, ended };
  const rows = await completeSteps(db, {
    ...completionParams({
      change: how.change,
      eventType: how.eventType,
      countAttempt: false,
      timedOut: how.timedOut,
      cached: how.cached ?? false,
      reportEnded: true,
    }),
    ...completionsInput(completions),
  });
  for (const row of rows) {
    if (row.id === null) continue;
    if (row.what === 'settle') marked.add(row.id);
    else if (row.what === 'ended') ended.add(row.id);
  }
  return { completed: acceptedCompletions(completions, rows), marked, ended };
}
