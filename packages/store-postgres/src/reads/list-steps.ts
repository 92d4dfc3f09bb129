import type { SqlRunner } from '../db/sql-runner.js';
import { defineStatement } from '../db/statement.js';
import { limitHolds } from '../tables/limits/limit-holds.js';
import { STEP_COLUMNS, type StepReadRow } from './run-columns.js';
import { stepsOfRun } from '../db/steps-of-run.js';

/** The run whose steps to list. */
export interface ListStepsParams {
  runId: string;
}

const statement = defineStatement<ListStepsParams, StepReadRow>(
  'list-steps',
  (t, p) => `
SELECT ${STEP_COLUMNS}, output,
       coalesce(lim.held AND scheduled_at <= now(), false) AS awaiting_resource
FROM ${t.steps} s
LEFT JOIN LATERAL (${limitHolds(t, 's')}) lim ON true
WHERE ${stepsOfRun('s', p.runId)}
ORDER BY item_index NULLS FIRST, created_at, id
`,
);

/** A run's steps in creation order (nodes, then item tasks in item order), with outputs. */
export function listSteps(db: SqlRunner, p: ListStepsParams): Promise<StepReadRow[]> {
  return db.rows(statement, p);
}
