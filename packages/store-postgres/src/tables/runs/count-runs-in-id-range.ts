import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** A half-open range of run ids, `[from, to)`, and the most runs worth counting. */
export interface CountRunsInIdRangeParams {
  from: string;
  to: string;
  limit: number;
}

/**
 * How many runs have an id in the range, counted up to `limit`: a walk of the primary key that
 * stops there. Run ids are UUIDs version 7, so a range of ids is a period of creation times.
 */
const statement = defineStatement<CountRunsInIdRangeParams, { n: number }>(
  'count-runs-in-id-range',
  (t, p) => `
SELECT count(*)::int AS n FROM (
  SELECT 1 FROM ${t.runs} WHERE id >= ${p.from}::uuid AND id < ${p.to}::uuid LIMIT ${p.limit}
) runs
`,
);

/** Counts the runs with an id in the range, up to `limit` (see the statement). */
export async function countRunsInIdRange(
  db: SqlRunner,
  p: CountRunsInIdRangeParams,
): Promise<number> {
  return (await db.one(statement, p))?.n ?? 0;
}
