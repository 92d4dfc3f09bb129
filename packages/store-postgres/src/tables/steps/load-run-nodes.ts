import type { OnDepFailure } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import type { StepRecord } from '../../schema/rows.js';
import { defineStatement } from '../../db/statement.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** The run whose nodes to load. */
export interface LoadRunNodesParams {
  runId: string;
}

/** A node's step as the run-state rule sees it. */
export type RunNodeRow = Pick<
  StepRecord,
  | 'id'
  | 'node'
  | 'node_type'
  | 'state'
  | 'depends_on'
  | 'deps_remaining'
  | 'error_kind'
  | 'error'
  | 'child_run_id'
> & { on_dep_failure: OnDepFailure };

/** The node steps of a run (item tasks excluded), for the run-state rule. */
const statement = defineStatement<LoadRunNodesParams, RunNodeRow>(
  'load-run-nodes',
  (t, p) => `
SELECT id, node, node_type, state, depends_on, deps_remaining, on_dep_failure, error_kind, error,
       child_run_id
FROM ${t.stepsHot} s
WHERE ${stepsOfRun('s', `(SELECT ${p.runId}::uuid)`)} AND item_index IS NULL
ORDER BY created_at, id
`,
);

/** Loads a run's node steps in declaration order. */
export function loadRunNodes(db: SqlRunner, p: LoadRunNodesParams): Promise<RunNodeRow[]> {
  return db.rows(statement, p);
}
