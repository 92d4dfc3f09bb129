import type { RunState } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** The run whose waiting child nodes to read, and the state they wait in. */
export interface LoadWaitingChildrenParams {
  runId: string;
  waitingState: string;
}

/** A waiting child node, with its child run's state and error once it has one. */
export interface WaitingChildRow {
  id: string;
  node: string;
  child_run_id: string | null;
  child_state: RunState | null;
  child_error: string | null;
}

/**
 * A run's child nodes in `waiting_child`, in declaration order, each with the state of the child
 * run it started (null while it has none). Locks the node rows: runs under the run's lock.
 */
const statement = defineStatement<LoadWaitingChildrenParams, WaitingChildRow>(
  'load-waiting-children',
  (t, p) => `
SELECT s.id, s.node, s.child_run_id, c.state AS child_state, c.error AS child_error
FROM ${t.stepsHot} s LEFT JOIN ${t.runsHot} c ON c.id = s.child_run_id
WHERE ${stepsOfRun('s', `(SELECT ${p.runId}::uuid)`)} AND s.item_index IS NULL AND s.state = (SELECT ${p.waitingState}::text)
ORDER BY s.created_at, s.id
FOR UPDATE OF s
`,
);

/** Reads a run's waiting child nodes (see the statement). */
export function loadWaitingChildren(
  db: SqlRunner,
  p: LoadWaitingChildrenParams,
): Promise<WaitingChildRow[]> {
  return db.rows(statement, p);
}
