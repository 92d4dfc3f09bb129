import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The held steps whose leases to extend. */
export interface HeartbeatStepsParams {
  stepIds: string[];
  claimTokens: string[];
  leaseMs: number;
}

/** A step still held. */
export interface HeldStepRow {
  id: string;
}

/**
 * Extends the leases of steps a worker still runs. A step missing from the result has lost its
 * lease (reclaimed, cancelled, or ended), and its handler should be aborted. Writes no state.
 */
const statement = defineStatement<HeartbeatStepsParams, HeldStepRow>(
  'heartbeat-steps',
  (t, p) => `
UPDATE ${t.steps} s
SET lease_expires_at = now() + (SELECT ${p.leaseMs}::bigint) * interval '1 millisecond'
FROM unnest((SELECT ${p.stepIds}::uuid[]), (SELECT ${p.claimTokens}::uuid[])) AS h(id, token)
WHERE s.id = h.id AND s.claim_token = h.token AND s.state = 'running'
RETURNING s.id
`,
);

/** Extends leases (see the statement); returns the steps still held. */
export function heartbeatSteps(db: SqlRunner, p: HeartbeatStepsParams): Promise<HeldStepRow[]> {
  return db.rows(statement, p);
}
