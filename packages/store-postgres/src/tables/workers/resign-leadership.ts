import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import type { LeadershipParams } from './attempt-leadership.js';

/**
 * Gives up a leader lease the caller holds, so another replica can take over at once. The lease
 * ends now but its row stays: the next holder records the gap from its last renewal (decision 240).
 */
const statement = defineStatement<LeadershipParams>(
  'resign-leadership',
  (t, p) => `
UPDATE ${t.leaders} SET expires_at = least(expires_at, now())
WHERE name = ${p.name} AND holder = ${p.holder}
`,
);

/** Gives up the named lease if `holder` has it. */
export async function resignLeadership(db: SqlRunner, p: LeadershipParams): Promise<void> {
  await db.count(statement, p);
}
