import { EventType } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import type { SingleFromChangeParams } from '../transitions/change-params.js';
import { sqlConstant, recordEvents } from '../events/record-events.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** The wait nodes of a run to promote, and the change that promotes them. */
export interface PromoteWaitsParams extends SingleFromChangeParams {
  runId: string;
  /** The node types this change applies to. */
  nodeTypes: readonly string[];
  /** True for a timer: `scheduled_at = now() + wait_for`; false for a signal wait's max wait. */
  timer: boolean;
  /** Only a run in this state promotes (decision 14: a paused run starts no new work). */
  promotingRunState: string;
}

/** A promoted wait node. */
export interface PromotedWaitRow {
  id: string;
  node: string;
}

/**
 * Moves the wait nodes of a run whose dependencies have all completed straight into their wait: a
 * timer's fire time and a signal wait's max-wait deadline count from now (the database clock).
 * These two columns stay the single record of the time left, which a pause and resume shift.
 * Runs in the transaction that holds the run's lock.
 */
const statement = defineStatement<PromoteWaitsParams, PromotedWaitRow>(
  'promote-waits',
  (t, p) => `
WITH promoted AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.toState}::text),
      scheduled_at = CASE WHEN (SELECT ${p.timer}::boolean)
                          THEN now() + s.wait_for_ms * interval '1 millisecond'
                          ELSE s.scheduled_at END,
      wait_deadline_at = CASE WHEN NOT (SELECT ${p.timer}::boolean) AND s.max_wait_ms IS NOT NULL
                              THEN now() + s.max_wait_ms * interval '1 millisecond'
                              ELSE s.wait_deadline_at END
  WHERE ${stepsOfRun('s', `(SELECT ${p.runId}::uuid)`)} AND s.item_index IS NULL AND s.deps_remaining = 0
    AND s.node_type = ANY((SELECT ${p.nodeTypes}::text[])::text[]) AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
    AND EXISTS (SELECT 1 FROM ${t.runsHot} r
                WHERE r.id = (SELECT ${p.runId}::uuid) AND r.state = (SELECT ${p.promotingRunState}::text))
  RETURNING s.id, s.run_id, s.node
), events AS (
  ${recordEvents(t, {
    source: 'promoted',
    type: sqlConstant(EventType.StepWaiting),
    from: `(SELECT ${p.eventFrom}::text)`,
    to: `(SELECT ${p.toState}::text)`,
    trigger: `(SELECT ${p.trigger}::text)`,
  })}
)
SELECT id, node FROM promoted
`,
);

/** Promotes a run's ready wait nodes of some types (see the statement). */
export function promoteWaits(db: SqlRunner, p: PromoteWaitsParams): Promise<PromotedWaitRow[]> {
  return db.rows(statement, p);
}
