import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import type { LockedRunRow } from './lock-run.js';

/** The step whose run to lock. */
export interface LockRunOfStepParams {
  stepId: string;
}

/** Locks the run of a step (see `lock-run`), found by the step's id. */
const statement = defineStatement<LockRunOfStepParams, LockedRunRow>(
  'lock-run-of-step',
  (t, p) => `
SELECT r.id, r.state FROM ${t.runsHot} r
WHERE r.id = (SELECT run_id FROM ${t.stepsHot} WHERE id = (SELECT ${p.stepId}::uuid))
FOR UPDATE
`,
);

/** Locks the run of a step; undefined for an unknown step. */
export function lockRunOfStep(
  db: SqlRunner,
  p: LockRunOfStepParams,
): Promise<LockedRunRow | undefined> {
  return db.one(statement, p);
}
