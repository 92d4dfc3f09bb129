import type { SqlRunner } from '../db/sql-runner.js';
import { defineStatement } from '../db/statement.js';
import { runColumns, type RunReadRow } from './run-columns.js';

/** The runs to read. */
export interface GetRunsParams {
  runIds: readonly string[];
}

const statement = defineStatement<GetRunsParams, RunReadRow>(
  'get-runs',
  (t, p) => `SELECT ${runColumns(t)} FROM ${t.runs} r WHERE r.id = ANY(${p.runIds}::uuid[])`,
);

/** Several runs by id (for waiters woken by one notification); unknown ids are left out. */
export function getRuns(db: SqlRunner, p: GetRunsParams): Promise<RunReadRow[]> {
  return db.rows(statement, p);
}
