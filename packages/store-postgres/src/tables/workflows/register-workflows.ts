import type { WorkflowDefinition } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The definitions to register, as columns. */
export interface RegisterWorkflowsParams {
  hashes: string[];
  names: string[];
  definitionsJson: string[];
}

/**
 * Stores the definitions a worker or scheduler registers, by hash, in one statement. A definition
 * stored already is stamped as registered now, so the version the newest process registered is
 * the newest of its name: the one a child node or a schedule of that name starts, also after a
 * deploy rolled back to an older version.
 */
const statement = defineStatement<RegisterWorkflowsParams>(
  'register-workflows',
  (t, p) => `
INSERT INTO ${t.workflows} (hash, name, definition)
SELECT * FROM unnest(${p.hashes}::text[], ${p.names}::text[], ${p.definitionsJson}::jsonb[])
ON CONFLICT (hash) DO UPDATE SET created_at = now()
`,
);

/** Registers workflow definitions by name and hash (see the statement). */
export async function registerWorkflows(
  db: SqlRunner,
  definitions: readonly WorkflowDefinition[],
): Promise<void> {
  if (definitions.length === 0) return;
  const unique = [...new Map(definitions.map((d) => [d.hash, d])).values()];
  await db.count(statement, {
    hashes: unique.map((d) => d.hash),
    names: unique.map((d) => d.name),
    definitionsJson: unique.map((d) => JSON.stringify(d)),
  });
}
