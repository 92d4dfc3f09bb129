import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** Step ids of a run that may name item tasks. */
export interface FindItemNodesParams {
  runId: string;
  stepIds: string[];
}

/** An item task and the name of its fan-out node. */
export interface ItemNodeRow {
  id: string;
  node: string;
}

/**
 * The fan-out node of each item task among `stepIds` (ids that are not item tasks of the run are
 * left out): a retry that names an item task retries its node.
 */
const statement = defineStatement<FindItemNodesParams, ItemNodeRow>(
  'find-item-nodes',
  (t, p) => `
SELECT i.id, n.node
FROM unnest((SELECT ${p.stepIds}::uuid[])) AS listed(id)
JOIN ${t.stepsHot} i ON i.id = listed.id
JOIN ${t.stepsHot} n ON n.id = i.parent_step_id
WHERE i.run_id = (SELECT ${p.runId}::uuid)
`,
);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Maps item task ids to their fan-out node's name (see the statement); other strings are skipped. */
export async function findItemNodes(
  db: SqlRunner,
  runId: string,
  stepIds: readonly string[],
): Promise<Map<string, string>> {
  const ids = stepIds.filter((id) => UUID.test(id));
  if (ids.length === 0) return new Map();
  const rows = await db.rows(statement, { runId, stepIds: ids });
  return new Map(rows.map((r) => [r.id, r.node]));
}
