import type { Executor } from '../../db/executor.js';
import { defineStatement } from '../../db/statement.js';

/** The run whose parent to find, and the run states that count as ended. */
export interface FindEndedParentParams {
  runId: string;
  terminalStates: readonly string[];
}

/**
 * The parent of a child run that has ended and whose parent still has its marker in the
 * settlement outbox: the parent's child node has not learnt of the end yet.
 */
const statement = defineStatement<FindEndedParentParams, { parent_run_id: string }>(
  'find-ended-parent',
  (t, p) => `
SELECT r.parent_run_id FROM ${t.runs} r
JOIN ${t.settlements} m ON m.run_id = r.parent_run_id
WHERE r.id = ${p.runId} AND r.state = ANY(${p.terminalStates}::text[])
`,
);

/** The parent still to settle after a child run ended (see the statement), or undefined. */
export async function findEndedParent(
  db: Executor,
  p: FindEndedParentParams,
): Promise<string | undefined> {
  return (await db.one(statement, p))?.parent_run_id;
}
