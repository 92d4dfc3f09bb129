import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { claimColumns, type ClaimChangeParams } from './claim-parts.js';

/** The step to claim, for whom (`workerId`), and the claim change. */
export interface ClaimStepParams extends ClaimChangeParams {
  stepId: string;
  /** How long the claim holds: the sweep that claims ends it in the same transaction. */
  leaseMs: number;
}

/** The claimed step. */
export interface ClaimedOneRow {
  id: string;
  claim_token: string;
  attempts: number;
}

/**
 * Claims one given available step for an engine component rather than a handler (the scheduler
 * failing a step no worker can run), so that what follows is an ordinary fenced outcome.
 */
const statement = defineStatement<ClaimStepParams, ClaimedOneRow>(
  'claim-step',
  (t, p) => `
WITH claimed AS (
  UPDATE ${t.stepsHot}
  SET state = (SELECT ${p.toState}::text), ${claimColumns(t, p.workerId, p.leaseMs)}
  WHERE id = (SELECT ${p.stepId}::uuid) AND state = ANY((SELECT ${p.fromStates}::text[])::text[])
  RETURNING id, run_id, node, attempts, claim_token
)
SELECT id, claim_token, attempts FROM claimed
`,
);

/** Claims one step (see the statement); undefined when it is no longer claimable. */
export function claimStep(db: SqlRunner, p: ClaimStepParams): Promise<ClaimedOneRow | undefined> {
  return db.one(statement, p);
}
