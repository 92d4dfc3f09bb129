import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** Signals one waiting node consumes. */
export interface GatherSignalsParams {
  stepId: string;
  signalIds: string[];
  /** Their payloads as one JSON array, in arrival order. */
  payloadsJson: string;
  /** `waiting_signal`: only a node still waiting gathers. */
  waitingState: string;
}

/**
 * Marks signals consumed by a waiting node and appends their payloads to the node's
 * `wait_payloads`, so a `waitN` short of its quorum keeps what it gathered (across a pause, and
 * for a lapse's output). Runs in the transaction that holds the run's lock.
 */
const statement = defineStatement<GatherSignalsParams, { id: string }>(
  'gather-signals',
  (t, p) => `
WITH gathered AS (
  UPDATE ${t.stepsHot}
  SET wait_payloads = coalesce(wait_payloads, '[]'::jsonb) || (SELECT ${p.payloadsJson}::jsonb)
  WHERE id = (SELECT ${p.stepId}::uuid) AND state = (SELECT ${p.waitingState}::text)
  RETURNING id
)
UPDATE ${t.signals} g SET consumed_by = (SELECT ${p.stepId}::uuid), consumed_at = now()
WHERE g.id = ANY((SELECT ${p.signalIds}::bigint[])::bigint[]) AND g.consumed_by IS NULL
  AND EXISTS (SELECT 1 FROM gathered)
RETURNING g.id
`,
);

/** Consumes signals for a waiting node (see the statement); returns the signals consumed. */
export function gatherSignals(db: SqlRunner, p: GatherSignalsParams): Promise<{ id: string }[]> {
  return db.rows(statement, p);
}
