import type { SqlRunner } from '../db/sql-runner.js';
import type { EventRecord } from '../schema/rows.js';
import { defineStatement } from '../db/statement.js';

/** Which events to list. */
export interface ListEventsParams {
  runId: string;
  afterId: number | null;
  limit: number;
}

/**
 * A run's history in id order, after an optional event id, from `cyclone_history` (migration
 * 0013): the stored events with those the rows tell, never stored (decisions 130 and 134): the
 * run's `run_submitted` (id 0) and `run_completed` (id `Number.MAX_SAFE_INTEGER`), each step's
 * latest claim while it runs or succeeded, with that success, and a task's latest promotion by a
 * completion (decision 300), under the ids the claim, the completion and the promotion took from
 * the events' sequence. The view's filters on the run reach each of its parts,
 * so the read walks the run's rows by their indexes.
 */
const statement = defineStatement<ListEventsParams, EventRecord>(
  'list-events',
  (t, p) => `
SELECT id, run_id, step_id, node, type, from_state, to_state, trigger, error_kind, detail, at
FROM ${t.history}
WHERE run_id = ${p.runId} AND id > coalesce(${p.afterId}::bigint, -1)
ORDER BY id
LIMIT ${p.limit}
`,
);

/** A run's events in the order they happened, after an optional event id. */
export function listEvents(db: SqlRunner, p: ListEventsParams): Promise<EventRecord[]> {
  return db.rows(statement, p);
}
