import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** A built workflow definition to store. */
export interface StoreDefinitionParams {
  hash: string;
  name: string;
  definitionJson: string;
}

/** Stores a definition by hash, as submit does; an existing hash is left as it is. */
const statement = defineStatement<StoreDefinitionParams>(
  'store-definition',
  (t, p) => `
INSERT INTO ${t.workflows} (hash, name, definition)
VALUES (${p.hash}, ${p.name}, ${p.definitionJson}::jsonb)
ON CONFLICT (hash) DO NOTHING
`,
);

/** Stores a workflow definition by hash (see the statement). */
export async function storeDefinition(db: SqlRunner, p: StoreDefinitionParams): Promise<void> {
  await db.count(statement, p);
}
