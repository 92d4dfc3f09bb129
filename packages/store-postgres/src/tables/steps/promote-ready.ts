import type { SqlRunner } from '../../db/sql-runner.js';
import { NodeType, StepState, StepTrigger, stepChange } from '@cyclone/core';
import { defineStatement } from '../../db/statement.js';
import type { SingleFromChangeParams } from '../transitions/change-params.js';
import { stepsReadyTail } from './steps-ready-tail.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** A task whose last dependency completed: 'pending -> available' by `promote`. */
export const promoteTask = stepChange(StepTrigger.Promote, StepState.Available, NodeType.Task);

/** The run whose ready pending steps to promote, and the task promotion change. */
export interface PromoteReadyParams extends SingleFromChangeParams {
  runId: string;
  /** The node type promotion moves here (`task`); other ready nodes go to the settlement outbox. */
  taskType: string;
}

/**
 * Promotes a run's pending task nodes whose dependencies are all complete: the completions of a
 * paused run leave them pending (no new work starts in a pause), and a retry reopens steps whose
 * dependencies may be met. A ready node of another type (a wait, child or fan-out node), and a
 * cached task (which looks its key up first), is left to settlement: the run is written to the
 * outbox. Runs under the run's lock.
 */
const statement = defineStatement<PromoteReadyParams, { id: string }>(
  'promote-ready',
  (t, p) => `
WITH promoted AS (
  UPDATE ${t.stepsHot} s SET state = (SELECT ${p.toState}::text), scheduled_at = now()
  WHERE ${stepsOfRun('s', `(SELECT ${p.runId}::uuid)`)} AND s.item_index IS NULL AND s.deps_remaining = 0
    AND s.node_type = (SELECT ${p.taskType}::text) AND s.cache_ttl_ms IS NULL
    AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
  RETURNING s.id, s.run_id, s.node, s.kind
), others AS (
  INSERT INTO ${t.settlements} (run_id)
  SELECT DISTINCT s.run_id FROM ${t.stepsHot} s
  WHERE ${stepsOfRun('s', `(SELECT ${p.runId}::uuid)`)} AND s.item_index IS NULL AND s.deps_remaining = 0
    AND (s.node_type <> (SELECT ${p.taskType}::text) OR s.cache_ttl_ms IS NOT NULL)
    AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
  ON CONFLICT (run_id) DO NOTHING
), ${stepsReadyTail(t, 'promoted', p)}
`,
);

/** Promotes a run's ready pending tasks (see the statement). */
export function promoteReady(db: SqlRunner, p: PromoteReadyParams): Promise<{ id: string }[]> {
  return db.rows(statement, p);
}
