import type { SqlRunner } from '../db/sql-runner.js';
import { defineStatement } from '../db/statement.js';
import { runColumns, type RunReadRow } from './run-columns.js';

/** The filters of {@link listRuns}; a null filter matches everything. */
export interface ListRunsParams {
  states: readonly string[] | null;
  workflow: string | null;
  idempotencyKey: string | null;
  /** Only the child runs of this run. */
  parentRunId: string | null;
  createdAfter: Date | null;
  createdBefore: Date | null;
  /** The keyset cursor: the `created_at` (full precision) and id of the previous page's last row. */
  cursorAt: string | null;
  cursorId: string | null;
  limit: number;
}

/** A listed run with its cursor. */
export type ListedRunRow = RunReadRow & { cursor_at: string };

/**
 * Runs newest first, filtered by state, workflow, idempotency key, parent run and creation time, paginated by a keyset cursor
 * (`cursor_at` is `created_at` at full microsecond precision, which a JavaScript Date would lose).
 */
const statement = defineStatement<ListRunsParams, ListedRunRow>(
  'list-runs',
  (t, p) => `
SELECT ${runColumns(t)}, r.created_at::text AS cursor_at FROM ${t.runs} r
WHERE (${p.states}::text[] IS NULL OR r.state = ANY(${p.states}::text[]))
  AND (${p.workflow}::text IS NULL OR r.workflow = ${p.workflow}::text)
  -- The key table finds a key's run by its primary key (nothing indexes the runs' own column).
  AND (${p.idempotencyKey}::text IS NULL
       OR r.id = (SELECT k.run_id FROM ${t.runKeys} k WHERE k.key = ${p.idempotencyKey}::text))
  AND (${p.parentRunId}::uuid IS NULL OR r.parent_run_id = ${p.parentRunId}::uuid)
  AND (${p.createdAfter}::timestamptz IS NULL OR r.created_at >= ${p.createdAfter}::timestamptz)
  AND (${p.createdBefore}::timestamptz IS NULL OR r.created_at < ${p.createdBefore}::timestamptz)
  AND (${p.cursorAt}::timestamptz IS NULL
       OR (r.created_at, r.id) < (${p.cursorAt}::timestamptz, ${p.cursorId}::uuid))
ORDER BY r.created_at DESC, r.id DESC
LIMIT ${p.limit}
`,
);

/** One page of runs (see the statement). */
export function listRuns(db: SqlRunner, p: ListRunsParams): Promise<ListedRunRow[]> {
  return db.rows(statement, p);
}
