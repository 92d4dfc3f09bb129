import { EventType } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { sqlConstant, recordEvents } from '../events/record-events.js';
import type { SingleFromChangeParams } from '../transitions/change-params.js';
import { workflowStepsOfRun } from '../../db/steps-of-run.js';

/** The discarded child nodes to retry and the change that retries them. */
export interface RetryChildNodesParams extends SingleFromChangeParams {
  runId: string;
  stepIds: string[];
  nodeTypes: readonly string[];
  completedState: string;
}

/**
 * Retries discarded child nodes: back to `pending` (the table's `discarded -> pending` row), error,
 * error kind and end cleared, `deps_remaining` recounted, the child run they started kept. The
 * settlement in the same transaction moves each on to `waiting_child`, where it finds its child
 * run started again (or completed with its result). Runs under the run's lock.
 */
const statement = defineStatement<RetryChildNodesParams, { id: string }>(
  'retry-child-nodes',
  (t, p) => `
WITH retried AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.toState}::text), error = NULL, error_kind = NULL, ended_at = NULL,
      wait_deadline_at = NULL,
      deps_remaining = (SELECT count(*) FROM ${t.stepsHot} d
                        WHERE ${workflowStepsOfRun('d', 's.run_id')} AND d.item_index IS NULL
                          AND d.node = ANY(s.depends_on) AND d.state <> (SELECT ${p.completedState}::text))
  -- The listed steps by a join with their ids: one probe of the key each (decision 422).
  FROM unnest((SELECT ${p.stepIds}::uuid[])) AS listed(id)
  WHERE s.id = listed.id AND s.run_id = (SELECT ${p.runId}::uuid)
    AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[]) AND s.node_type = ANY((SELECT ${p.nodeTypes}::text[])::text[])
  RETURNING s.id, s.run_id, s.node
), events AS (
  ${recordEvents(t, {
    source: 'retried',
    type: sqlConstant(EventType.StepRetried),
    from: `(SELECT ${p.eventFrom}::text)`,
    to: `(SELECT ${p.toState}::text)`,
    trigger: `(SELECT ${p.trigger}::text)`,
  })}
)
SELECT id FROM retried
`,
);

/** Retries discarded child nodes (see the statement). */
export function retryChildNodes(
  db: SqlRunner,
  p: RetryChildNodesParams,
): Promise<{ id: string }[]> {
  return db.rows(statement, p);
}
