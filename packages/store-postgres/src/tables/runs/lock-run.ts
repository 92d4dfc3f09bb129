import type { SqlRunner } from '../../db/sql-runner.js';
import type { RunRecord } from '../../schema/rows.js';
import { defineStatement } from '../../db/statement.js';

/** The run to lock. */
export interface LockRunParams {
  runId: string;
}

/** The locked run. */
export type LockedRunRow = Pick<RunRecord, 'id' | 'state'>;

/**
 * Locks a run for the rest of the transaction. Every writer that may change a run's state or
 * several of its steps takes this lock first, so they serialise per run and cannot deadlock.
 */
const statement = defineStatement<LockRunParams, LockedRunRow>(
  'lock-run',
  (t, p) => `SELECT id, state FROM ${t.runsHot} WHERE id = (SELECT ${p.runId}::uuid) FOR UPDATE`,
);

/** Locks a run (see the statement); undefined for an unknown run. */
export function lockRun(db: SqlRunner, p: LockRunParams): Promise<LockedRunRow | undefined> {
  return db.one(statement, p);
}
