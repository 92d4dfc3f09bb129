import { decideRunOutcome, RunState, StepState, StepTrigger } from '@cyclone/core';
import type { RunNodeRow } from '../tables/steps/load-run-nodes.js';

/** What a retry writes: the discarded nodes it retries and the cancelled nodes it reopens. */
export interface RetryPlan {
  /** Node names retried (`discarded -> available`). */
  readonly retry: readonly string[];
  /** Node names reopened (`cancelled -> pending`). */
  readonly reopen: readonly string[];
}

/** Every node downstream of any of `starts`. */
function downstream(nodes: readonly RunNodeRow[], starts: ReadonlySet<string>): Set<string> {
  const seen = new Set<string>();
  let frontier = [...starts];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const n of nodes) {
      if (seen.has(n.node) || !n.depends_on.some((d) => frontier.includes(d))) continue;
      seen.add(n.node);
      next.push(n.node);
    }
    frontier = next;
  }
  return seen;
}

/**
 * Plans a retry of `requested` (discarded node names). It reopens the nodes fail-fast cancelled
 * (the run failed; once retried it may finish) and the nodes branch cancellation cancelled
 * downstream of a retried node; steps an operator cancelled stay cancelled. A run can leave
 * `failed` only if nothing fails it any more, so when core's run-state rule says the planned run
 * would still fail because of another discard it does not contain, that discard is retried too
 * (decision: a retry of one node widens to the uncontained discards that would fail the run again).
 *
 * @param causes - the trigger that cancelled each cancelled node (by node name)
 */
export function planRetry(
  nodes: readonly RunNodeRow[],
  causes: ReadonlyMap<string, string | null>,
  requested: ReadonlySet<string>,
): RetryPlan {
  const retry = new Set(requested);
  for (;;) {
    const below = downstream(nodes, retry);
    const reopen = nodes
      .filter((n) => n.state === StepState.Cancelled)
      .filter((n) => {
        const cause = causes.get(n.node);
        if (cause === StepTrigger.FailFast) return true;
        return cause === StepTrigger.CancelBranch && below.has(n.node);
      })
      .map((n) => n.node);
    const reopened = new Set(reopen);
    const outcome = decideRunOutcome({
      runState: RunState.Running,
      nodes: nodes.map((n) => ({
        name: n.node,
        state: retry.has(n.node)
          ? StepState.Available
          : reopened.has(n.node)
            ? StepState.Pending
            : n.state,
        dependsOn: n.depends_on,
        onDepFailure: n.on_dep_failure,
      })),
    });
    const culprit = outcome.state === RunState.Failed ? outcome.failedBy : undefined;
    if (culprit === undefined || retry.has(culprit)) {
      return { retry: [...retry], reopen };
    }
    retry.add(culprit);
  }
}
