import { EventType } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { sqlConstant, recordEvents } from '../events/record-events.js';
import type { SingleFromChangeParams } from '../transitions/change-params.js';

/** The child node to discard, the change and what it records. */
export interface DiscardChildNodeParams extends SingleFromChangeParams {
  stepId: string;
  errorKind: string;
  error: string;
}

/** The discarded node, with the child run it had started (null when none). */
export interface DiscardedChildRow {
  id: string;
  run_id: string;
  child_run_id: string | null;
}

/**
 * Discards a waiting child node (its child run gave no result, its maxWait lapsed, its workflow is
 * unknown): the error recorded, counted off its run's open steps, a `step_discarded` event. The
 * run-state rule then applies in the same transaction (fail-fast, branch cancellation). Runs under
 * the run's lock.
 */
const statement = defineStatement<DiscardChildNodeParams, DiscardedChildRow>(
  'discard-child-node',
  (t, p) => `
WITH discarded AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.toState}::text), error_kind = (SELECT ${p.errorKind}::text), error = (SELECT ${p.error}::text),
      ended_at = now()
  WHERE s.id = (SELECT ${p.stepId}::uuid) AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
  RETURNING s.id, s.run_id, s.node, s.child_run_id
), counted AS (
  UPDATE ${t.runsHot} r SET open_steps = greatest(0, r.open_steps - 1)
  FROM discarded d WHERE r.id = d.run_id
), events AS (
  ${recordEvents(t, {
    source: 'discarded',
    type: sqlConstant(EventType.StepDiscarded),
    from: `(SELECT ${p.eventFrom}::text)`,
    to: `(SELECT ${p.toState}::text)`,
    trigger: `(SELECT ${p.trigger}::text)`,
    errorKind: `(SELECT ${p.errorKind}::text)`,
  })}
)
SELECT id, run_id, child_run_id FROM discarded
`,
);

/** Discards a waiting child node (see the statement); undefined when it was not waiting. */
export function discardChildNode(
  db: SqlRunner,
  p: DiscardChildNodeParams,
): Promise<DiscardedChildRow | undefined> {
  return db.one(statement, p);
}
