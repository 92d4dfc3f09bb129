import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** How many due waits of each sort to return, and which node types lapse. */
export interface FindDueWaitsParams {
  limit: number;
  signalWaitTypes: readonly string[];
  /** Child nodes, whose lapse discards them rather than completing them. */
  childTypes: readonly string[];
}

/** A wait whose time came: a timer to fire, or a signal wait or child node whose max wait lapsed. */
export interface DueWaitRow {
  id: string;
  due: 'timer' | 'lapse' | 'child_lapse';
}

/**
 * Due timers and lapsed max waits (of signal waits and child nodes), oldest first, at most `limit` of each. The states are written
 * out (not bound) so that the planner matches the partial indexes `cyclone_steps_timer_idx` and
 * `cyclone_steps_wait_deadline_idx` on the prepared statement's generic plan; the store asserts
 * at import that they are the from-states of core's changes. Reads only: each wait is then
 * settled in its own transaction under its run's lock.
 */
const statement = defineStatement<FindDueWaitsParams, DueWaitRow>(
  'find-due-waits',
  (t, p) => `
(SELECT id, 'timer' AS due FROM ${t.stepsHot}
 WHERE state = 'waiting_timer' AND scheduled_at <= now()
 ORDER BY scheduled_at LIMIT (SELECT ${p.limit}::int))
UNION ALL
(SELECT id, CASE WHEN node_type = ANY((SELECT ${p.childTypes}::text[])::text[]) THEN 'child_lapse'
                 ELSE 'lapse' END AS due FROM ${t.stepsHot}
 WHERE state IN ('waiting_signal', 'waiting_child') AND wait_deadline_at IS NOT NULL
   AND wait_deadline_at <= now()
   AND (node_type = ANY((SELECT ${p.signalWaitTypes}::text[])::text[]) OR node_type = ANY((SELECT ${p.childTypes}::text[])::text[]))
 ORDER BY wait_deadline_at LIMIT (SELECT ${p.limit}::int))
`,
);

/** The states {@link statement} writes out, for the import-time check. */
export const DueWaitStates = {
  timer: 'waiting_timer',
  lapse: 'waiting_signal',
  childLapse: 'waiting_child',
} as const;

/** Lists due timers and lapsed max waits (see the statement). */
export function findDueWaits(db: SqlRunner, p: FindDueWaitsParams): Promise<DueWaitRow[]> {
  return db.rows(statement, p);
}
