import type { SqlRunner } from '../../db/sql-runner.js';
import type { StepRecord } from '../../schema/rows.js';
import { defineStatement } from '../../db/statement.js';

/** The expanded fan-out node whose progress to read. */
export interface ReadFanOutProgressParams {
  nodeId: string;
  /**
   * Whether to count the items in progress: only a node with a limit needs the count, and
   * without one it would be every unfinished item of the list at every settlement.
   */
  countInProgress: boolean;
  inProgressStates: readonly string[];
  unfinishedStates: readonly string[];
  discardedState: string;
  /** The state of item tasks waiting for a place (`pending`). */
  waitingState: string;
}

/** Where a fan-out node's item tasks stand. */
export interface FanOutProgressRow {
  /** Item tasks holding a place of the limit (available, running or paused); 0 uncounted. */
  in_progress: number;
  /** Whether any item task is not completed yet. */
  unfinished: boolean;
  /** Whether any item task waits for a place: without one, there is nothing to release. */
  waiting: boolean;
  /** The first discarded item task, in item order, when there is one. */
  discarded_index: number | null;
  discarded_error: string | null;
  discarded_kind: StepRecord['error_kind'];
}

/**
 * Reads what settlement needs to move a fan-out node on: each part is a probe of the index on
 * (parent_step_id, state, item_index), so it costs the items in those states (at most the limit
 * in progress, and nothing when there is no limit), never every item of a large list.
 */
const statement = defineStatement<ReadFanOutProgressParams, FanOutProgressRow>(
  'read-fan-out-progress',
  (t, p) => `
SELECT
  CASE WHEN (SELECT ${p.countInProgress}::boolean) THEN
    (SELECT count(*)::int FROM ${t.stepsHot} i
     WHERE i.parent_step_id = (SELECT ${p.nodeId}::uuid) AND i.state = ANY((SELECT ${p.inProgressStates}::text[])::text[]))
  ELSE 0 END AS in_progress,
  EXISTS (SELECT 1 FROM ${t.stepsHot} i
          WHERE i.parent_step_id = (SELECT ${p.nodeId}::uuid) AND i.state = ANY((SELECT ${p.unfinishedStates}::text[])::text[]))
    AS unfinished,
  EXISTS (SELECT 1 FROM ${t.stepsHot} i
          WHERE i.parent_step_id = (SELECT ${p.nodeId}::uuid) AND i.state = (SELECT ${p.waitingState}::text))
    AS waiting,
  d.item_index AS discarded_index, d.error AS discarded_error, d.error_kind AS discarded_kind
FROM (SELECT 1) AS one
LEFT JOIN LATERAL (
  SELECT i.item_index, i.error, i.error_kind FROM ${t.stepsHot} i
  WHERE i.parent_step_id = (SELECT ${p.nodeId}::uuid) AND i.state = (SELECT ${p.discardedState}::text)
  ORDER BY i.item_index LIMIT 1
) d ON true
`,
);

/** Reads an expanded fan-out node's progress (see the statement). */
export async function readFanOutProgress(
  db: SqlRunner,
  p: ReadFanOutProgressParams,
): Promise<FanOutProgressRow> {
  const row = await db.one(statement, p);
  if (!row)
    throw new TypeError(`read-fan-out-progress returned no row for (SELECT ${p.nodeId}::uuid)`);
  return row;
}
