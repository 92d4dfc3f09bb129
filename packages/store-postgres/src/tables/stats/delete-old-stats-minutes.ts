import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** Which minutes the retention sweep deletes. */
export interface DeleteOldStatsMinutesParams {
  /** Minutes that began longer ago than this are deleted. */
  keepMs: number;
  /** Most rows deleted by one statement. */
  limit: number;
}

/** Deletes up to `limit` minute rows older than `keepMs`, oldest first, by the primary key. */
const statement = defineStatement<DeleteOldStatsMinutesParams>(
  'delete-old-stats-minutes',
  (t, p) => `
DELETE FROM ${t.statsMinutes} m
USING (SELECT minute, kind FROM ${t.statsMinutes}
       WHERE minute < now() - ${p.keepMs}::bigint * interval '1 millisecond'
       ORDER BY minute LIMIT ${p.limit}) old
WHERE m.minute = old.minute AND m.kind = old.kind
`,
);

/** Deletes old minute rows (see the statement); returns how many. */
export function deleteOldStatsMinutes(
  db: SqlRunner,
  p: DeleteOldStatsMinutesParams,
): Promise<number> {
  return db.count(statement, p);
}
