import { EventType } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { Channels } from '../../db/channels.js';
import { defineStatement } from '../../db/statement.js';
import { sqlConstant, recordEvents } from '../events/record-events.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** One batch of a fan-out node's item tasks. */
export interface InsertItemsParams {
  runId: string;
  nodeId: string;
  /** The upstream node whose output is the list. */
  sourceNode: string;
  /** The ids of the batch's items, for positions `offset`, `offset + 1`, ... */
  itemIds: string[];
  offset: number;
  itemType: string;
  /** The state of items within the `maxParallel` limit (`available`, or `paused` in a pause). */
  withinState: string;
  /** The state of items beyond it (`pending`). */
  beyondState: string;
  trigger: string;
  availableState: string;
}

/**
 * Inserts one batch of a fan-out node's item tasks in one statement, each with its element of
 * the source node's list (read by position inside the database, so the list never travels), the
 * node's kind, attempts, timeout, backoff and dependency policy, and counts them into the run's
 * open steps. The unique index on (parent_step_id, item_index) makes a second expansion insert
 * nothing: an item that exists is skipped and gets no second event. Runs under the run's lock.
 */
const statement = defineStatement<InsertItemsParams, { inserted: string }>(
  'insert-items',
  (t, p) => `
WITH node AS (
  SELECT * FROM ${t.stepsHot} WHERE id = ${p.nodeId}
), source AS (
  SELECT output FROM ${t.stepsHot} s
  WHERE ${stepsOfRun('s', p.runId)} AND node = ${p.sourceNode}::text AND item_index IS NULL
), positions AS (
  SELECT u.id, (${p.offset}::int + u.ord - 1)::int AS idx, u.ord
  FROM unnest(${p.itemIds}::uuid[]) WITH ORDINALITY AS u(id, ord)
), elements AS (
  -- The batch's slice of the list in one read of it: output -> idx for each item would read
  -- the whole list (stored compressed, out of line) again for every item, 0.1 ms an item.
  SELECT e.value, e.ord
  FROM source src
  CROSS JOIN LATERAL jsonb_path_query(
    src.output, 'strict $[$first to $last]',
    jsonb_build_object('first', ${p.offset}::int,
                       'last', ${p.offset}::int + cardinality(${p.itemIds}::uuid[]) - 1)
  ) WITH ORDINALITY AS e(value, ord)
), inserted AS (
  INSERT INTO ${t.stepsHot} (id, run_id, node, node_type, kind, state, depends_on, deps_remaining,
                          on_dep_failure, parent_step_id, item_index, item, max_attempts,
                          timeout_ms, backoff, scheduled_at, concurrency_key, priority)
  SELECT x.id, n.run_id, n.node, ${p.itemType}::text, n.kind,
         CASE WHEN n.max_parallel IS NULL OR x.idx < n.max_parallel THEN ${p.withinState}::text
              ELSE ${p.beyondState}::text END,
         '{}'::text[], 0, n.on_dep_failure, n.id, x.idx, el.value, n.max_attempts,
         n.timeout_ms, n.backoff, now(), n.concurrency_key, n.priority
  FROM node n CROSS JOIN positions x JOIN elements el ON el.ord = x.ord
  -- Without a target: on steps partitioned by period the pair is unique by each partition's own
  -- index, which only a targetless clause can arbitrate by (decision 349). An item's id is fresh,
  -- so the pair is the only conflict there can be.
  ON CONFLICT DO NOTHING
  RETURNING id, run_id, node, kind, state
), counted AS (
  UPDATE ${t.runsHot} r SET open_steps = r.open_steps + (SELECT count(*) FROM inserted)
  WHERE r.id = ${p.runId} AND EXISTS (SELECT 1 FROM inserted)
), events AS (
  ${recordEvents(t, {
    source: 'inserted',
    type: sqlConstant(EventType.ItemInserted),
    from: 'NULL',
    to: 'state',
    trigger: `${p.trigger}::text`,
  })}
), notified AS (
  SELECT pg_notify('${Channels.stepsAvailable}', kind)
  FROM (SELECT DISTINCT kind FROM inserted
        WHERE state = ${p.availableState}::text AND kind IS NOT NULL) k
)
SELECT (SELECT count(*) FROM inserted) AS inserted, (SELECT count(*) FROM notified) AS notified
`,
);

/** Inserts a batch of item tasks (see the statement); resolves with how many it inserted. */
export async function insertItems(db: SqlRunner, p: InsertItemsParams): Promise<number> {
  const row = await db.one(statement, p);
  return Number(row?.inserted ?? 0);
}
