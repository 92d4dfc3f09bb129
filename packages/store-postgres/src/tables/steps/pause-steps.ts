import { EventType } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { sqlConstant, recordEvents } from '../events/record-events.js';
import type { ChangeParams } from '../transitions/change-params.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** The run whose claimable and waiting steps to pause, and the change that pauses them. */
export interface PauseStepsParams extends ChangeParams {
  runId: string;
}

/**
 * Pauses a run's available, waiting and waiting-child steps. Their deadlines and timers are left
 * as they are: resume moves them forward by the pause's length, so each keeps the time it had
 * left. Running steps go on; pending ones stay pending. Runs under the run's lock.
 */
const statement = defineStatement<PauseStepsParams, { id: string }>(
  'pause-steps',
  (t, p) => `
WITH paused AS (
  UPDATE ${t.stepsHot} s SET state = (SELECT ${p.toState}::text)
  WHERE ${stepsOfRun('s', `(SELECT ${p.runId}::uuid)`)} AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
  RETURNING s.id, s.run_id, s.node, (SELECT x.state FROM ${t.stepsHot} x WHERE x.id = s.id) AS from_state
), events AS (
  ${recordEvents(t, {
    source: 'paused',
    type: sqlConstant(EventType.StepPaused),
    from: 'from_state',
    to: `(SELECT ${p.toState}::text)`,
    trigger: `(SELECT ${p.trigger}::text)`,
  })}
)
SELECT id FROM paused
`,
);

/** Pauses a run's steps (see the statement). */
export function pauseSteps(db: SqlRunner, p: PauseStepsParams): Promise<{ id: string }[]> {
  return db.rows(statement, p);
}
