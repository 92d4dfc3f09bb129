import type { Executor } from '../db/executor.js';
import { defineStatement } from '../db/statement.js';

/** The state of a discarded step. */
export interface CountExhaustedParams {
  discardedState: string;
}

/** Discarded steps by error kind; served by the partial index on discarded steps. */
const statement = defineStatement<CountExhaustedParams, { reason: string; count: number }>(
  'count-exhausted-by-reason',
  (t, p) => `
SELECT COALESCE(error_kind, 'unknown') AS reason, count(*)::int AS count
FROM ${t.steps} WHERE state = ${p.discardedState}::text
GROUP BY 1 ORDER BY 1
`,
);

/** The DLQ's size by reason (reasons with no step are left out). */
export function countExhaustedByReason(
  db: Executor,
  p: CountExhaustedParams,
): Promise<{ reason: string; count: number }[]> {
  return db.rows(statement, p);
}
