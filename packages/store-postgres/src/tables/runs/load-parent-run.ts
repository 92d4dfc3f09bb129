import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The run whose definition and input to read. */
export interface LoadParentRunParams {
  runId: string;
}

/** A run's stored definition and its input as JSON text. */
export interface ParentRunRow {
  definition: unknown;
  input_json: string;
}

/**
 * A run's definition (as stored when it was submitted) and its input: what its child nodes need
 * to start their child runs (the child workflow's name, the input they pass on).
 */
const statement = defineStatement<LoadParentRunParams, ParentRunRow>(
  'load-parent-run',
  (t, p) => `
SELECT w.definition, r.input::text AS input_json
FROM ${t.runsHot} r JOIN ${t.workflows} w ON w.hash = r.definition_hash
WHERE r.id = (SELECT ${p.runId}::uuid)
`,
);

/** Reads a run's definition and input; undefined for a standalone job or an unknown run. */
export function loadParentRun(
  db: SqlRunner,
  p: LoadParentRunParams,
): Promise<ParentRunRow | undefined> {
  return db.one(statement, p);
}
