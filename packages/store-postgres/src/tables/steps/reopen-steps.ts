import { EventType, StepState, StepTrigger } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { sqlConstant, recordEvents } from '../events/record-events.js';
import type { SingleFromChangeParams } from '../transitions/change-params.js';
import { workflowStepsOfRun } from '../../db/steps-of-run.js';

/** The cancelled steps a retry reopens, and the change that reopens them. */
export interface ReopenStepsParams extends SingleFromChangeParams {
  runId: string;
  stepIds: string[];
  completedState: string;
}

/**
 * Reopens steps that fail-fast or branch cancellation cancelled because of a retried discard:
 * back to `pending`, with `deps_remaining` recounted from the dependencies not completed now, so
 * promotion (in the same transaction, or when the last dependency completes) makes them available.
 * A task's earlier promotion, which its row told (`ready_event_id`), is stored as its `step_ready`
 * event under the same id and time, so its history keeps it. Runs under the run's lock.
 */
const statement = defineStatement<ReopenStepsParams, { id: string }>(
  'reopen-steps',
  (t, p) => `
WITH reopened AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.toState}::text), ended_at = NULL, lease_expires_at = NULL,
      claim_token = NULL, claimed_by = NULL, ready_event_id = NULL, ready_at = NULL,
      deps_remaining = (SELECT count(*) FROM ${t.stepsHot} d
                        WHERE ${workflowStepsOfRun('d', 's.run_id')} AND d.item_index IS NULL
                          AND d.node = ANY(s.depends_on) AND d.state <> (SELECT ${p.completedState}::text))
  -- The promotion the row told until now (a task's step_ready), read as it was before this
  -- update, to be stored: the next promotion tells its own.
  -- The listed steps by a join with their ids: one probe of the key each (decision 422).
  FROM (SELECT x.id, x.ready_event_id, x.ready_at
        FROM unnest((SELECT ${p.stepIds}::uuid[])) AS listed(id) JOIN ${t.stepsHot} x ON x.id = listed.id
        WHERE x.run_id = (SELECT ${p.runId}::uuid)) told
  WHERE s.id = told.id AND s.run_id = (SELECT ${p.runId}::uuid)
    AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
  RETURNING s.id, s.run_id, s.node, told.ready_event_id AS told_ready_id,
            told.ready_at AS told_ready_at
), events AS (
  ${recordEvents(
    t,
    {
      source: 'reopened',
      where: 'told_ready_id IS NOT NULL',
      id: 'told_ready_id',
      at: 'told_ready_at',
      type: sqlConstant(EventType.StepReady),
      from: sqlConstant(StepState.Pending),
      to: sqlConstant(StepState.Available),
      trigger: sqlConstant(StepTrigger.Promote),
    },
    {
      source: 'reopened',
      type: sqlConstant(EventType.StepReopened),
      from: `(SELECT ${p.eventFrom}::text)`,
      to: `(SELECT ${p.toState}::text)`,
      trigger: `(SELECT ${p.trigger}::text)`,
    },
  )}
)
SELECT id FROM reopened
`,
);

/** Reopens cancelled steps (see the statement). */
export function reopenSteps(db: SqlRunner, p: ReopenStepsParams): Promise<{ id: string }[]> {
  return db.rows(statement, p);
}
