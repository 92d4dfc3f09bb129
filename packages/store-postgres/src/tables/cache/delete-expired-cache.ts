import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** How many expired entries one call deletes at most. */
export interface DeleteExpiredCacheParams {
  limit: number;
}

/**
 * Deletes up to `limit` expired entries of the result cache, oldest expiry first, through the
 * expiry index; entries another transaction holds are skipped, not waited for.
 */
const statement = defineStatement<DeleteExpiredCacheParams, never>(
  'delete-expired-cache',
  (t, p) => `
DELETE FROM ${t.cache} c
USING (SELECT kind, key FROM ${t.cache} WHERE expires_at <= now()
       ORDER BY expires_at LIMIT ${p.limit} FOR UPDATE SKIP LOCKED) doomed
WHERE c.kind = doomed.kind AND c.key = doomed.key
`,
);

/** Deletes expired cache entries (see the statement); resolves with how many it deleted. */
export function deleteExpiredCache(db: SqlRunner, p: DeleteExpiredCacheParams): Promise<number> {
  return db.count(statement, p);
}
