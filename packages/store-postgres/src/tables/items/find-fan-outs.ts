import type { SqlRunner } from '../../db/sql-runner.js';
import type { StepRecord } from '../../schema/rows.js';
import { defineStatement } from '../../db/statement.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** The run whose open fan-out nodes to find. */
export interface FindFanOutsParams {
  runId: string;
  fanOutType: string;
  pendingState: string;
}

/** An open fan-out node whose dependencies completed, and whether it has expanded. */
export type OpenFanOutRow = Pick<StepRecord, 'id' | 'node' | 'max_parallel'> & {
  expanded: boolean;
};

/**
 * The fan-out nodes of a run that are `pending` with every dependency completed: those not yet
 * expanded (no item task exists) and those whose item tasks are under way. Runs under the run's
 * lock, so the answer holds until the settlement ends.
 */
const statement = defineStatement<FindFanOutsParams, OpenFanOutRow>(
  'find-fan-outs',
  (t, p) => `
SELECT n.id, n.node, n.max_parallel,
       EXISTS (SELECT 1 FROM ${t.stepsHot} i WHERE i.parent_step_id = n.id) AS expanded
FROM ${t.stepsHot} n
WHERE ${stepsOfRun('n', `(SELECT ${p.runId}::uuid)`)} AND n.item_index IS NULL AND n.node_type = (SELECT ${p.fanOutType}::text)
  AND n.state = (SELECT ${p.pendingState}::text) AND n.deps_remaining = 0
ORDER BY n.created_at, n.id
`,
);

/** Finds a run's ready and expanding fan-out nodes, in declaration order. */
export function findFanOuts(db: SqlRunner, p: FindFanOutsParams): Promise<OpenFanOutRow[]> {
  return db.rows(statement, p);
}
