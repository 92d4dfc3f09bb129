import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The fan-out node whose item outputs to collect. */
export interface CollectItemOutputsParams {
  nodeId: string;
}

/**
 * The outputs of a fan-out node's item tasks as one JSON array in item order, as text. Built in
 * the database, so no output is parsed and printed again on the way (a number keeps every digit).
 */
const statement = defineStatement<CollectItemOutputsParams, { output: string | null }>(
  'collect-item-outputs',
  (t, p) => `
SELECT coalesce(jsonb_agg(i.output ORDER BY i.item_index), '[]'::jsonb)::text AS output
FROM ${t.stepsHot} i WHERE i.parent_step_id = (SELECT ${p.nodeId}::uuid)
`,
);

/** Collects a fan-out node's item outputs (see the statement). */
export async function collectItemOutputs(
  db: SqlRunner,
  p: CollectItemOutputsParams,
): Promise<string> {
  return (await db.one(statement, p))?.output ?? '[]';
}
