import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** A half-open range of run ids, `[from, to)`, and what keeps a run of it alive. */
export interface LiveRunsParams {
  from: string;
  to: string;
  /** A run that ended longer ago than this is past its retention; null keeps every run alive. */
  retentionMs: number | null;
  terminalStates: readonly string[];
  /** The most runs worth finding. */
  limit: number;
}

/**
 * The runs with an id in the range that retention keeps (not ended, or ended within it), up to
 * `limit`. Run ids are UUIDs version 7, so the range is a period, and the walk visits that
 * period's partition alone.
 */
const statement = defineStatement<LiveRunsParams, { id: string }>(
  'live-runs-in-id-range',
  (t, p) => `
SELECT id FROM ${t.runs}
WHERE id >= ${p.from}::uuid AND id < ${p.to}::uuid
  AND NOT coalesce(state = ANY(${p.terminalStates}::text[])
                   AND ended_at < now() - ${p.retentionMs}::bigint * interval '1 millisecond', false)
LIMIT ${p.limit}
`,
);

/** The ids of the runs of the range that retention keeps, up to `limit` (see the statement). */
export async function liveRunsInIdRange(db: SqlRunner, p: LiveRunsParams): Promise<string[]> {
  return (await db.rows(statement, p)).map((r) => r.id);
}
