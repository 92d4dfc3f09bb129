import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { stepsReadyTail } from '../steps/steps-ready-tail.js';
import type { SingleFromChangeParams } from '../transitions/change-params.js';

/** The fan-out node whose waiting item tasks to release, and the change that releases them. */
export interface ReleaseItemsParams extends SingleFromChangeParams {
  nodeId: string;
  inProgressStates: readonly string[];
  /**
   * The one state waiting items are in (`pending`), the `from_state` of their events. The next
   * items are found by it as a single value, so the index on (parent_step_id, state, item_index)
   * yields them in order; with `state = ANY(...)` a generic plan cannot rely on that order and
   * sorts every waiting item of the list, 4 ms a release on a list of 10,000.
   */
}

/**
 * Releases the next waiting item tasks of a fan-out node, in item order, into the free places of
 * its `maxParallel` limit: the limit minus the items available, running or paused (a paused item
 * keeps its place). A node without a limit releases all of them. Runs under the run's lock, in a
 * run that is not paused.
 */
const statement = defineStatement<ReleaseItemsParams, { id: string }>(
  'release-items',
  (t, p) => `
WITH free AS (
  SELECT CASE WHEN n.max_parallel IS NULL THEN NULL
              ELSE greatest(0, n.max_parallel - (
                SELECT count(*) FROM ${t.stepsHot} i
                WHERE i.parent_step_id = n.id AND i.state = ANY((SELECT ${p.inProgressStates}::text[])::text[])))
         END AS places
  FROM ${t.stepsHot} n WHERE n.id = (SELECT ${p.nodeId}::uuid)
), next AS (
  SELECT i.id FROM ${t.stepsHot} i
  WHERE i.parent_step_id = (SELECT ${p.nodeId}::uuid) AND i.state = (SELECT ${p.eventFrom}::text)
  ORDER BY i.item_index
  LIMIT (SELECT places FROM free)
), released AS (
  UPDATE ${t.stepsHot} s SET state = (SELECT ${p.toState}::text), scheduled_at = now()
  WHERE s.id IN (SELECT id FROM next) AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
  RETURNING s.id, s.run_id, s.node, s.kind
), ${stepsReadyTail(t, 'released', p)}
`,
);

/** Releases a fan-out node's next item tasks (see the statement); resolves with how many. */
export async function releaseItems(db: SqlRunner, p: ReleaseItemsParams): Promise<number> {
  return (await db.rows(statement, p)).length;
}
