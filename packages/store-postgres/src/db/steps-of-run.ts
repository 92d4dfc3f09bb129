/**
 * How a statement finds the steps of a run. A standalone job's one step shares its run's id and
 * stays out of the steps' run index (`cyclone_steps_run_idx`, partial: `id <> run_id`), so the
 * job's enqueue, claim and completion write no entry there (decision 302); every other step is in
 * it. A statement reaches both kinds through these conditions: the primary key finds the job's
 * step, the run index the others, and the planner ORs the two (a `BitmapOr`). A plain
 * `run_id = $1` still finds every step, but cannot use the partial index.
 */

/**
 * The steps of the run `runId` (an SQL expression: a parameter, or a column of an outer row),
 * `alias` naming the steps' table.
 */
export function stepsOfRun(alias: string, runId: string): string {
  return `(${alias}.run_id = ${runId} AND (${alias}.id = ${runId} OR ${alias}.id <> ${alias}.run_id))`;
}

/**
 * The steps of the runs in `runIds`, an SQL expression of a `uuid[]` that appears twice: an
 * `ARRAY(SELECT ...)` of a CTE becomes two init plans, each run once a statement, over the CTE
 * computed once.
 */
export function stepsOfRuns(alias: string, runIds: string): string {
  return `(${alias}.run_id = ANY(${runIds}) AND (${alias}.id = ANY(${runIds}) OR ${alias}.id <> ${alias}.run_id))`;
}

/**
 * The steps of the workflow run `runId`: for a statement that reads only runs with a definition
 * (a dependency's output, a dependent, a fan-out's items), whose steps are all in the run index.
 * Never for a run that may be a standalone job: its step would not be found.
 */
export function workflowStepsOfRun(alias: string, runId: string): string {
  return `(${alias}.run_id = ${runId} AND ${alias}.id <> ${alias}.run_id)`;
}
