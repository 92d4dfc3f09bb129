import {
  describeThrown,
  parseWorkflowDefinition,
  StepState,
  type ChildNodeDefinition,
  type WorkflowDefinition,
} from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { findStoredDefinition } from '../tables/workflows/find-stored-definition.js';
import { insertRuns, insertRunsParams } from '../tables/runs/insert-runs.js';
import { runOfDefinition } from '../tables/runs/new-runs.js';
import { countAncestors } from '../tables/runs/count-ancestors.js';
import { setChildRun } from '../tables/children/set-child-run.js';

/**
 * How deep child runs may nest: a child node of a run this many levels below a top-level run is
 * discarded instead of starting another. Workflows that start each other (A starts B, B starts A)
 * would otherwise start runs without end.
 */
export const MaxChildDepth = 32;

/** What starting a child run did: the run it started, or why none could start. */
export type StartedChild =
  | { readonly ok: true; readonly childRunId: string }
  | { readonly ok: false; readonly error: string };

/** The waiting child node to start a run for. */
export interface ChildStart {
  readonly parentRunId: string;
  readonly stepId: string;
  readonly node: ChildNodeDefinition;
  /** The child run's input as JSON text. */
  readonly inputJson: string;
}

/**
 * The definition a child node starts: the newest one stored under the workflow's name, which
 * workers and schedulers store when they start (and submit stores for each run). Reading it from
 * the database lets any process start a child run. An unknown name or a stored definition that no
 * longer builds is an error for the node, not an exception.
 */
async function resolveChildWorkflow(
  db: SqlRunner,
  name: string,
): Promise<{ ok: true; definition: WorkflowDefinition } | { ok: false; error: string }> {
  const stored = await findStoredDefinition(db, { name });
  if (stored === undefined) {
    return {
      ok: false,
      error: `child workflow ${name} is not registered: pass it in the workflows of a worker or scheduler, or submit it once`,
    };
  }
  try {
    return { ok: true, definition: parseWorkflowDefinition(stored) };
  } catch (error) {
    return {
      ok: false,
      error: `child workflow ${name} did not build: ${describeThrown(error).message}`,
    };
  }
}

/**
 * Starts the child run of a waiting child node through submission's insert (its run row with
 * `parent_run_id` / `parent_step_id`, its steps, its `run_submitted` event) and links the node to
 * it, in the caller's transaction under the parent's lock. A child run that has child nodes
 * waiting at once is written to the settlement outbox by the insert, and settled next. A run
 * nested {@link MaxChildDepth} levels deep starts none.
 */
export async function startChildRun(db: SqlRunner, start: ChildStart): Promise<StartedChild> {
  const depth = await countAncestors(db, { runId: start.parentRunId, limit: MaxChildDepth });
  if (depth >= MaxChildDepth) {
    return {
      ok: false,
      error: `child runs nest ${MaxChildDepth} levels deep here: workflow ${start.node.workflow} is not started again (do these workflows start each other?)`,
    };
  }
  const resolved = await resolveChildWorkflow(db, start.node.workflow);
  if (!resolved.ok) return resolved;
  const refusal = await db.childInputCheck?.(start.node.workflow, JSON.parse(start.inputJson));
  if (refusal !== undefined) return { ok: false, error: refusal };
  const run = runOfDefinition(resolved.definition, start.inputJson, {
    parentRunId: start.parentRunId,
    parentStepId: start.stepId,
  });
  await insertRuns(db, insertRunsParams([run]));
  await setChildRun(db, {
    stepId: start.stepId,
    childRunId: run.id,
    waitingState: StepState.WaitingChild,
  });
  return { ok: true, childRunId: run.id };
}
