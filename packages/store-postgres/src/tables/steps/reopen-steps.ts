import { EventType } from '@cyclone/core';
import type { Executor } from '../../db/executor.js';
import { defineStatement } from '../../db/statement.js';
import { sqlConstant, recordEvents } from '../events/record-events.js';
import type { SingleFromChangeParams } from '../transitions/change-params.js';

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
 * Runs under the run's lock.
 */
const statement = defineStatement<ReopenStepsParams, { id: string }>(
  'reopen-steps',
  (t, p) => `
WITH reopened AS (
  UPDATE ${t.steps} s
  SET state = ${p.toState}::text, ended_at = NULL, lease_expires_at = NULL,
      claim_token = NULL, claimed_by = NULL,
      deps_remaining = (SELECT count(*) FROM ${t.steps} d
                        WHERE d.run_id = s.run_id AND d.item_index IS NULL
                          AND d.node = ANY(s.depends_on) AND d.state <> ${p.completedState}::text)
  WHERE s.run_id = ${p.runId} AND s.id = ANY(${p.stepIds}::uuid[])
    AND s.state = ANY(${p.fromStates}::text[])
  RETURNING s.id, s.run_id, s.node
), events AS (
  ${recordEvents(t, {
    source: 'reopened',
    type: sqlConstant(EventType.StepReopened),
    from: `${p.eventFrom}::text`,
    to: `${p.toState}::text`,
    trigger: `${p.trigger}::text`,
  })}
)
SELECT id FROM reopened
`,
);

/** Reopens cancelled steps (see the statement). */
export function reopenSteps(db: Executor, p: ReopenStepsParams): Promise<{ id: string }[]> {
  return db.rows(statement, p);
}
