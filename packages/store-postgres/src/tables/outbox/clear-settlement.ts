import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The run whose settlement marker to clear. */
export interface ClearSettlementParams {
  runId: string;
}

/** Deletes a run's row of the settlement outbox; runs in the transaction that settles the run. */
const statement = defineStatement<ClearSettlementParams>(
  'clear-settlement',
  (t, p) => `DELETE FROM ${t.settlements} WHERE run_id = ${p.runId}`,
);

/** Clears a run's settlement marker; resolves with how many rows it deleted (0 or 1). */
export function clearSettlement(db: SqlRunner, p: ClearSettlementParams): Promise<number> {
  return db.count(statement, p);
}
