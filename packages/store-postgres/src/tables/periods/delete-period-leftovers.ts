import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** A half-open range of run ids, `[from, to)`, and the runs of it that stay. */
export interface DeletePeriodLeftoversParams {
  from: string;
  to: string;
  keep: readonly string[];
}

/**
 * Deletes the signals, settlement markers and idempotency keys of the runs of a period that leave
 * with its partitions (every run of the range but those in `keep`): the rows of unpartitioned
 * tables that name them. The keys are found by the index on their run; a period's runs ended
 * long ago, so few signals and markers are left.
 */
const statement = defineStatement<DeletePeriodLeftoversParams>(
  'delete-period-leftovers',
  (t, p) => `
WITH signals AS (
  DELETE FROM ${t.signals}
  WHERE run_id >= ${p.from}::uuid AND run_id < ${p.to}::uuid AND run_id <> ALL(${p.keep}::uuid[])
), run_keys AS (
  DELETE FROM ${t.runKeys}
  WHERE run_id >= ${p.from}::uuid AND run_id < ${p.to}::uuid AND run_id <> ALL(${p.keep}::uuid[])
)
DELETE FROM ${t.settlements}
WHERE run_id >= ${p.from}::uuid AND run_id < ${p.to}::uuid AND run_id <> ALL(${p.keep}::uuid[])
`,
);

/** Deletes what other tables hold of a period's leaving runs (see the statement). */
export async function deletePeriodLeftovers(
  db: SqlRunner,
  p: DeletePeriodLeftoversParams,
): Promise<void> {
  await db.count(statement, p);
}
