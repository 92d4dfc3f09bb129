import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import type { StepRecord } from '../../schema/rows.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** The node whose step to read, and the trigger of an operator's move. */
export interface FindNodeStepParams {
  runId: string;
  node: string;
  /** The trigger operator moves record (`force`): the node's last one is read for the duplicate rule. */
  moveTrigger: string;
}

/** A node's step as an operator's move sees it, with the database's clock. */
export type NodeStepRow = Pick<
  StepRecord,
  'id' | 'node' | 'node_type' | 'state' | 'child_run_id' | 'depends_on'
> & {
  /** The `to_state` of the node's last operator move, if any. */
  last_move_to: string | null;
  last_move_at: Date | null;
  now: Date;
};

/**
 * Reads and locks a node's own step (not its item tasks) under the run's lock, with the node's
 * last operator move and `now()`. The row lock makes a handler's completion that races the move
 * wait for it, and then find the step moved (its state fence refuses it).
 */
const statement = defineStatement<FindNodeStepParams, NodeStepRow>(
  'find-node-step',
  (t, p) => `
SELECT s.id, s.node, s.node_type, s.state, s.child_run_id, s.depends_on, m.to_state AS last_move_to,
       m.at AS last_move_at, now() AS now
FROM ${t.stepsHot} s
LEFT JOIN LATERAL (
  SELECT e.to_state, e.at FROM ${t.events} e
  WHERE e.step_id = s.id AND e.trigger = (SELECT ${p.moveTrigger}::text)
  ORDER BY e.id DESC LIMIT 1
) m ON true
WHERE ${stepsOfRun('s', `(SELECT ${p.runId}::uuid)`)} AND s.node = (SELECT ${p.node}::text) AND s.item_index IS NULL
FOR UPDATE OF s
`,
);

/** Reads and locks a node's step (see the statement); undefined for an unknown node. */
export function findNodeStep(
  db: SqlRunner,
  p: FindNodeStepParams,
): Promise<NodeStepRow | undefined> {
  return db.one(statement, p);
}
