import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The (kind, key) pairs to look up, as two arrays of the same length. */
export interface FindCachedOutputsParams {
  kinds: string[];
  keys: string[];
}

/** An entry that has not expired, its output as JSON text. */
export interface CachedOutputRow {
  kind: string;
  key: string;
  output: string;
}

/**
 * The unexpired entries of the result cache for (kind, key) pairs, by the primary key. A hit
 * reads the entry and leaves it alone: it keeps the expiry its handler's completion gave it.
 */
const statement = defineStatement<FindCachedOutputsParams, CachedOutputRow>(
  'find-cached-outputs',
  (t, p) => `
SELECT c.kind, c.key, c.output::text AS output
FROM unnest(${p.kinds}::text[], ${p.keys}::text[]) AS q(kind, key)
JOIN ${t.cache} c ON c.kind = q.kind AND c.key = q.key
WHERE c.expires_at > now()
`,
);

/** Looks (kind, key) pairs up in the result cache (see the statement). */
export function findCachedOutputs(
  db: SqlRunner,
  p: FindCachedOutputsParams,
): Promise<CachedOutputRow[]> {
  return db.rows(statement, p);
}
