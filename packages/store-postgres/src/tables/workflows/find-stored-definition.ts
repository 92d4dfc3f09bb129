import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The workflow name to look up. */
export interface FindStoredDefinitionParams {
  name: string;
}

/** The newest stored definition of a workflow name, as JSON text. */
const statement = defineStatement<FindStoredDefinitionParams, { definition: unknown }>(
  'find-stored-definition',
  (t, p) => `
SELECT definition FROM ${t.workflows} WHERE name = ${p.name}
ORDER BY created_at DESC, hash LIMIT 1
`,
);

/** The newest stored definition named `name` (unvalidated), or undefined. */
export async function findStoredDefinition(
  db: SqlRunner,
  p: FindStoredDefinitionParams,
): Promise<unknown> {
  return (await db.one(statement, p))?.definition;
}
