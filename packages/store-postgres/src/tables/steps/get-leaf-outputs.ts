import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { stepsOfRun, workflowStepsOfRun } from '../../db/steps-of-run.js';

/** The run whose result to read. */
export interface GetLeafOutputsParams {
  runId: string;
}

/** A completed leaf node and its output. */
export interface LeafOutputRow {
  node: string;
  output: unknown;
}

/**
 * The completed leaf nodes of a run (nodes no other node depends on) with their outputs: the
 * run's result.
 */
const statement = defineStatement<GetLeafOutputsParams, LeafOutputRow>(
  'get-leaf-outputs',
  (t, p) => `
SELECT s.node, s.output FROM ${t.steps} s
WHERE ${stepsOfRun('s', p.runId)} AND s.item_index IS NULL AND s.state = 'completed'
  AND NOT EXISTS (
    SELECT 1 FROM ${t.steps} d
    WHERE ${workflowStepsOfRun('d', 's.run_id')} AND d.item_index IS NULL AND s.node = ANY(d.depends_on)
  )
ORDER BY s.created_at, s.id
`,
);

/** The outputs of a run's completed leaf nodes. */
export function getLeafOutputs(db: SqlRunner, p: GetLeafOutputsParams): Promise<LeafOutputRow[]> {
  return db.rows(statement, p);
}
