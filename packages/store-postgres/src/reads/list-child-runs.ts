import type { RunState } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { defineStatement } from '../db/statement.js';
import { stepsOfRun } from '../db/steps-of-run.js';

/** The parent run whose child runs to list. */
export interface ListChildRunsParams {
  runId: string;
}

/** A child run, with the parent's child node that started it. */
export interface ChildRunRow {
  run_id: string;
  node: string;
  step_id: string;
  state: RunState;
}

/**
 * The runs a run's child nodes started, in the nodes' declaration order. Read through the
 * parent's steps (`child_run_id`), so only the child run each node currently refers to is listed.
 */
const statement = defineStatement<ListChildRunsParams, ChildRunRow>(
  'list-child-runs',
  (t, p) => `
SELECT c.id AS run_id, s.node, s.id AS step_id, c.state
FROM ${t.steps} s JOIN ${t.runs} c ON c.id = s.child_run_id
WHERE ${stepsOfRun('s', p.runId)} AND s.child_run_id IS NOT NULL
ORDER BY s.created_at, s.id
`,
);

/** Lists a run's child runs (see the statement). */
export function listChildRuns(db: SqlRunner, p: ListChildRunsParams): Promise<ChildRunRow[]> {
  return db.rows(statement, p);
}
