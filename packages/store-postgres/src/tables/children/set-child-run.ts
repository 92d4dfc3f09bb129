import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The child node and the child run it started. */
export interface SetChildRunParams {
  stepId: string;
  childRunId: string;
  waitingState: string;
}

/**
 * Records the child run a waiting child node started, in the transaction that inserted the child
 * run; only a node that has none yet takes it, so a node never starts two.
 */
const statement = defineStatement<SetChildRunParams>(
  'set-child-run',
  (t, p) => `
UPDATE ${t.stepsHot} SET child_run_id = (SELECT ${p.childRunId}::uuid), started_at = coalesce(started_at, now())
WHERE id = (SELECT ${p.stepId}::uuid) AND state = (SELECT ${p.waitingState}::text) AND child_run_id IS NULL
`,
);

/** Links a child node to its child run; resolves with 1, or 0 when it had one already. */
export function setChildRun(db: SqlRunner, p: SetChildRunParams): Promise<number> {
  return db.count(statement, p);
}
