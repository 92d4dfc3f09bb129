import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** A half-open range of run ids, `[from, to)`. */
export interface RunIdRange {
  from: string;
  to: string;
}

/**
 * Whether any run has an id in the range: a walk of the primary key that stops at the first. Run
 * ids are UUIDs version 7, so a range of ids is a period of creation times.
 */
const statement = defineStatement<RunIdRange, { found: boolean }>(
  'any-run-in-id-range',
  (t, p) => `
SELECT EXISTS (
  SELECT 1 FROM ${t.runs}
  WHERE id >= ${p.from}::uuid AND id < ${p.to}::uuid
) AS found
`,
);

/** Whether a run with an id in `range` exists (see the statement). */
export async function anyRunInIdRange(db: SqlRunner, range: RunIdRange): Promise<boolean> {
  return (await db.one(statement, range))?.found ?? false;
}
