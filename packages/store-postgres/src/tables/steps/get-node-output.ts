import type { SqlRunner } from '../../db/sql-runner.js';
import type { StepRecord } from '../../schema/rows.js';
import { defineStatement } from '../../db/statement.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** The node to read. */
export interface GetNodeOutputParams {
  runId: string;
  node: string;
}

/** A node's state and output. */
export type NodeOutputRow = Pick<StepRecord, 'id' | 'node' | 'state' | 'output'>;

const statement = defineStatement<GetNodeOutputParams, NodeOutputRow>(
  'get-node-output',
  (t, p) => `
SELECT id, node, state, output FROM ${t.steps} s
WHERE ${stepsOfRun('s', `(SELECT ${p.runId}::uuid)`)} AND node = (SELECT ${p.node}::text) AND item_index IS NULL
`,
);

/** The node step (not an item task) of a run with the given name, with its output. */
export function getNodeOutput(
  db: SqlRunner,
  p: GetNodeOutputParams,
): Promise<NodeOutputRow | undefined> {
  return db.one(statement, p);
}
