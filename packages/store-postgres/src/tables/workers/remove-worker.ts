import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The worker that stopped. */
export interface RemoveWorkerParams {
  workerId: string;
}

/** Forgets a worker that stopped. */
const statement = defineStatement<RemoveWorkerParams>(
  'remove-worker',
  (t, p) => `DELETE FROM ${t.workers} WHERE id = ${p.workerId}`,
);

/** Forgets a stopped worker. */
export async function removeWorker(db: SqlRunner, p: RemoveWorkerParams): Promise<void> {
  await db.count(statement, p);
}
