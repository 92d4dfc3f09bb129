import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** The fan-out node whose list to inspect. */
export interface LoadFanOutSourceParams {
  runId: string;
  node: string;
}

/** What the node's definition says and what its source node produced. */
export interface FanOutSourceRow {
  /** The upstream node whose output is the list. */
  source: string | null;
  /** The most items the node may expand (its definition's `maxItems`). */
  max_items: number | null;
  /** `jsonb_typeof` of the source's output: `array` for a list. */
  output_type: string | null;
  /** The list's length when it is one. */
  length: number | null;
}

/**
 * Reads a fan-out node's `from` and `maxItems` from the definition stored for its run, and the
 * shape of that source node's output (its type and length), without loading the list itself.
 */
const statement = defineStatement<LoadFanOutSourceParams, FanOutSourceRow>(
  'load-fan-out-source',
  (t, p) => `
WITH node AS (
  SELECT n->>'from' AS source, (n->>'maxItems')::int AS max_items
  FROM ${t.runsHot} r
  JOIN ${t.workflows} w ON w.hash = r.definition_hash
  CROSS JOIN LATERAL jsonb_array_elements(w.definition->'nodes') AS n
  WHERE r.id = (SELECT ${p.runId}::uuid) AND n->>'name' = (SELECT ${p.node}::text)
)
SELECT node.source, node.max_items, jsonb_typeof(s.output) AS output_type,
       CASE WHEN jsonb_typeof(s.output) = 'array' THEN jsonb_array_length(s.output) END AS length
FROM node
LEFT JOIN ${t.stepsHot} s
  ON ${stepsOfRun('s', `(SELECT ${p.runId}::uuid)`)} AND s.node = node.source AND s.item_index IS NULL
`,
);

/** Reads a fan-out node's source (see the statement); undefined when its definition is gone. */
export function loadFanOutSource(
  db: SqlRunner,
  p: LoadFanOutSourceParams,
): Promise<FanOutSourceRow | undefined> {
  return db.one(statement, p);
}
