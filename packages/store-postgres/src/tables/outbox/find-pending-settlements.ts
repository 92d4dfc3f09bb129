import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** How many marked runs to return. */
export interface FindPendingSettlementsParams {
  limit: number;
}

/** A run marked for settlement. */
export interface PendingSettlementRow {
  run_id: string;
}

/** Runs in the settlement outbox, oldest marker first. */
const statement = defineStatement<FindPendingSettlementsParams, PendingSettlementRow>(
  'find-pending-settlements',
  (t, p) => `
SELECT run_id FROM ${t.settlements}
ORDER BY created_at, run_id
LIMIT ${p.limit}
`,
);

/** Lists runs that still wait for their settlement. */
export function findPendingSettlements(
  db: SqlRunner,
  p: FindPendingSettlementsParams,
): Promise<PendingSettlementRow[]> {
  return db.rows(statement, p);
}
