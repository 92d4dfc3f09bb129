import {
  checkRunInput,
  describeThrown,
  parseWorkflowDefinition,
  schemasOf,
  ValidationError,
  type WorkflowDefinition,
} from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import type { NewRun } from '../contract/new-run.js';
import { runOfDefinition, runOfJob } from '../tables/runs/new-runs.js';
import { findStoredDefinition } from '../tables/workflows/find-stored-definition.js';
import type { ScheduleRow } from '../tables/schedules/schedule-row.js';

/** What a schedule's fires submit: a way to build each run, or why none can be built. */
export type ScheduleTarget =
  | { readonly ok: true; readonly build: () => NewRun }
  | { readonly ok: false; readonly error: string };

/**
 * Resolves what a schedule submits. A job schedule enqueues its kind; a workflow schedule
 * submits the definition the caller knows by that name (the scheduler's `workflows`), else the
 * newest one stored in `cyclone_workflows`. An unknown workflow or a stored definition that no
 * longer validates is a submit failure of the schedule, not an exception; so is an input the
 * known definition's input schema refuses (the workflow changed since the schedule was made),
 * whose issues are the error: no run is written for it.
 */
export async function resolveScheduleTarget(
  db: SqlRunner,
  row: ScheduleRow,
  known: ReadonlyMap<string, WorkflowDefinition>,
): Promise<ScheduleTarget> {
  if (row.kind !== null) {
    const kind = row.kind;
    return { ok: true, build: () => runOfJob(kind, row.input_json) };
  }
  const name = row.workflow!;
  let definition = known.get(name);
  if (!definition) {
    const stored = await findStoredDefinition(db, { name });
    if (stored === undefined) {
      return {
        ok: false,
        error: `workflow ${name} is not registered: pass it in the scheduler's workflows, or submit or schedule its definition once`,
      };
    }
    try {
      definition = parseWorkflowDefinition(stored);
    } catch (error) {
      return {
        ok: false,
        error: `the stored definition of workflow ${name} did not build: ${describeThrown(error).message}`,
      };
    }
  }
  const def = definition;
  const refusal = await inputRefusal(def, row);
  if (refusal !== undefined) return { ok: false, error: refusal };
  return { ok: true, build: () => runOfDefinition(def, row.input_json) };
}

/**
 * Why the definition's input schema refuses the schedule's input (the ValidationError's message,
 * which names each issue's path), or undefined when it fits or the definition declares none (a
 * stored one never does). The stored input is submitted as it is: it is the schema's value from
 * when the schedule was made.
 */
async function inputRefusal(
  definition: WorkflowDefinition,
  row: ScheduleRow,
): Promise<string | undefined> {
  if (schemasOf(definition) === undefined) return undefined;
  try {
    await checkRunInput(
      definition,
      JSON.parse(row.input_json) as unknown,
      `input of schedule ${JSON.stringify(row.id)}`,
    );
    return undefined;
  } catch (error) {
    if (error instanceof ValidationError) return error.message;
    throw error;
  }
}
