import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The wait to lock, and the state it must still be in. */
export interface LockDueWaitParams {
  stepId: string;
  waitingState: string;
  /** True for a timer (due at `scheduled_at`), false for a max wait (due at `wait_deadline_at`). */
  timer: boolean;
}

/** The locked due wait, with the database clock's time. */
export interface DueWaitLockRow {
  id: string;
  node_type: string;
  wait_payloads: unknown[];
  now: Date;
}

/**
 * Locks a wait that is still waiting and still due, read under its run's lock: a signal, a pause
 * (which moves the due time on resume) or another scheduler replica may have come first, and then
 * nothing is returned, so a wait is never fired early or twice.
 */
const statement = defineStatement<LockDueWaitParams, DueWaitLockRow>(
  'lock-due-wait',
  (t, p) => `
SELECT id, node_type, coalesce(wait_payloads, '[]'::jsonb) AS wait_payloads, now() AS now
FROM ${t.stepsHot}
WHERE id = (SELECT ${p.stepId}::uuid) AND state = (SELECT ${p.waitingState}::text)
  AND CASE WHEN (SELECT ${p.timer}::boolean) THEN scheduled_at <= now()
           ELSE wait_deadline_at <= now() END
FOR UPDATE
`,
);

/** Locks a wait that is still due; undefined when it moved on or is not due. */
export function lockDueWait(
  db: SqlRunner,
  p: LockDueWaitParams,
): Promise<DueWaitLockRow | undefined> {
  return db.one(statement, p);
}
