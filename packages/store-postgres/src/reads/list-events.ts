import type { Executor } from '../db/executor.js';
import type { EventRecord } from '../db/rows.js';
import { defineStatement } from '../db/statement.js';

/** Which events to list. */
export interface ListEventsParams {
  runId: string;
  afterId: number | null;
  limit: number;
}

const statement = defineStatement<ListEventsParams, EventRecord>(
  'list-events',
  (t, p) => `
SELECT id, run_id, step_id, node, type, from_state, to_state, trigger, error_kind, detail, at
FROM ${t.events}
WHERE run_id = ${p.runId} AND id > coalesce(${p.afterId}::bigint, 0)
ORDER BY id
LIMIT ${p.limit}
`,
);

/** A run's events in the order they happened, after an optional event id. */
export function listEvents(db: Executor, p: ListEventsParams): Promise<EventRecord[]> {
  return db.rows(statement, p);
}
