import type { SqlRunner } from '../db/sql-runner.js';
import { defineStatement } from '../db/statement.js';
import { runColumns, type RunReadRow } from './run-columns.js';

/** The run to read. */
export interface GetRunParams {
  runId: string;
}

const statement = defineStatement<GetRunParams, RunReadRow>(
  'get-run',
  (t, p) => `SELECT ${runColumns(t)} FROM ${t.runs} r WHERE r.id = ${p.runId}`,
);

/** One run by id; undefined for an unknown id. */
export function getRun(db: SqlRunner, p: GetRunParams): Promise<RunReadRow | undefined> {
  return db.one(statement, p);
}
