import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The run whose cancelled steps to explain. */
export interface FindCancelCausesParams {
  runId: string;
  cancelledState: string;
}

/** A cancelled step and the trigger of the event that cancelled it. */
export interface CancelCauseRow {
  step_id: string;
  trigger: string | null;
}

/**
 * Why each cancelled step of a run was cancelled: the trigger of its latest event into
 * `cancelled` (`fail_fast`, `cancel_branch`, `cancel`, ...). Retry reopens only the steps a
 * discard cancelled, never those an operator cancelled, and the event log already records which.
 */
const statement = defineStatement<FindCancelCausesParams, CancelCauseRow>(
  'find-cancel-causes',
  (t, p) => `
SELECT DISTINCT ON (e.step_id) e.step_id, e.trigger
FROM ${t.events} e JOIN ${t.stepsHot} s ON s.id = e.step_id
WHERE e.run_id = (SELECT ${p.runId}::uuid) AND s.state = (SELECT ${p.cancelledState}::text)
  AND e.to_state = (SELECT ${p.cancelledState}::text)
ORDER BY e.step_id, e.id DESC
`,
);

/** Reads why a run's cancelled steps were cancelled (see the statement). */
export function findCancelCauses(
  db: SqlRunner,
  p: FindCancelCausesParams,
): Promise<CancelCauseRow[]> {
  return db.rows(statement, p);
}
