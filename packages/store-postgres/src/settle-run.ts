import {
  decideRunOutcome,
  ErrorKind,
  isTerminalRun,
  isTerminalStep,
  runChange,
  RunTrigger,
  StepState,
  StepTrigger,
  stepChange,
  type OnDepFailure,
  type RunState,
  type StepState as StepStateType,
} from '@cyclone/core';
import type { Executor } from './executor.js';
import { cancelSteps } from './sql/cancel-steps.js';
import { loadRunNodes } from './sql/load-run-nodes.js';
import { lockRun } from './sql/lock-run.js';
import { setRunState } from './sql/set-run-state.js';

// Every write below is one of these changes; the table refuses an illegal one at import.
const cancelByFailFast = stepChange(StepTrigger.FailFast, StepState.Cancelled);
const cancelByBranch = stepChange(StepTrigger.CancelBranch, StepState.Cancelled);
const runCompletes = runChange(RunTrigger.Complete, 'completed');
const runFails = runChange(RunTrigger.DiscardUncontained, 'failed');

interface NodeRow {
  id: string;
  node: string;
  node_type: string;
  state: StepStateType;
  depends_on: string[];
  deps_remaining: number;
  on_dep_failure: OnDepFailure;
  error_kind: string | null;
  error: string | null;
}

interface LockedRun {
  id: string;
  state: RunState;
}

/**
 * Brings a run in line with the run-state rule of core after one of its steps ended in a way the
 * fast paths do not settle (a discard, above all): cancels what fail-fast or branch cancellation
 * cancels and moves the run to `completed` or `failed`. Must run inside a transaction; it takes
 * the run's lock first.
 */
export async function settleRun(db: Executor, runId: string): Promise<void> {
  const run = await db.one<LockedRun & Record<string, unknown>>(lockRun, [runId]);
  if (!run || isTerminalRun(run.state)) return;
  const nodes = await db.rows<NodeRow>(loadRunNodes, [runId]);
  const outcome = decideRunOutcome({
    runState: run.state,
    nodes: nodes.map((n) => ({
      name: n.node,
      state: n.state,
      dependsOn: n.depends_on,
      onDepFailure: n.on_dep_failure,
    })),
  });

  const idOf = new Map(nodes.map((n) => [n.node, n]));
  for (const change of [cancelByBranch, cancelByFailFast]) {
    const ids = outcome.cancel
      .filter((c) => c.trigger === change.trigger)
      .map((c) => idOf.get(c.node))
      .filter((n) => n !== undefined && !isTerminalStep(n.state))
      .map((n) => n!.id);
    if (ids.length > 0) {
      await db.rows(cancelSteps, [runId, ids, `step_cancelled_${change.trigger}`, change.from]);
    }
  }

  if (outcome.state === run.state) return;
  if (outcome.state === 'completed') {
    await db.rows(setRunState, [
      runId,
      runCompletes.to,
      runCompletes.from,
      true,
      null,
      null,
      null,
      'run_completed',
    ]);
  } else if (outcome.state === 'failed') {
    const culprit = outcome.failedBy === undefined ? undefined : idOf.get(outcome.failedBy);
    await db.rows(setRunState, [
      runId,
      runFails.to,
      runFails.from,
      true,
      culprit?.error_kind ?? ErrorKind.Permanent,
      culprit?.error ?? null,
      outcome.failedBy ?? null,
      'run_failed',
    ]);
  }
}
