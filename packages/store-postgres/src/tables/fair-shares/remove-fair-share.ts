import type { SqlRunner } from '../../db/sql-runner.js';
import { Channels } from '../../db/channels.js';
import { defineStatement } from '../../db/statement.js';

/** The kind to take out of fair share. */
export interface RemoveFairShareParams {
  kind: string;
}

/**
 * Takes a kind out of fair share and wakes its workers: from their next claim, its steps are
 * claimed oldest first again (within their limits, if any).
 */
const statement = defineStatement<RemoveFairShareParams, { kind: string }>(
  'remove-fair-share',
  (t, p) => `
WITH removed AS (
  DELETE FROM ${t.fairShares} WHERE kind = ${p.kind}::text RETURNING kind
)
SELECT kind, pg_notify('${Channels.stepsAvailable}', kind) AS notified FROM removed
`,
);

/** Removes a kind's fair share; false when it had none. */
export async function removeFairShare(db: SqlRunner, p: RemoveFairShareParams): Promise<boolean> {
  return (await db.rows(statement, p)).length > 0;
}
