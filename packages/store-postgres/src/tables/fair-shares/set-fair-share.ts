import type { SqlRunner } from '../../db/sql-runner.js';
import { Channels } from '../../db/channels.js';
import { defineStatement } from '../../db/statement.js';

/** A kind's fair share. */
export interface SetFairShareParams {
  kind: string;
  /** The weights by key, as JSON text. */
  weightsJson: string;
}

/**
 * Puts a kind under fair share or replaces its weights, and wakes the kind's workers. The turn
 * stays where it is: new weights count from the next key's turn.
 *
 * It first waits for the limited claim of the kind under way, if any, by sharing the lock on the
 * kind's limit row: a fair claim tells a claim that committed after its own start by the turn's
 * row, which a merely limited claim does not move, so none may commit once the kind is under fair
 * share. Merely limited claims that start later find the fair-share row (`claimLimitedSteps` reads
 * it under the limit row's lock) and claim nothing (decision 400).
 */
const statement = defineStatement<SetFairShareParams, { kind: string }>(
  'set-fair-share',
  (t, p) => `
WITH held AS MATERIALIZED (
  SELECT kind FROM ${t.limits} WHERE kind = ${p.kind}::text FOR SHARE
), waited AS MATERIALIZED (
  SELECT count(*) AS n FROM held
), upserted AS (
  INSERT INTO ${t.fairShares} (kind, weights)
  -- From \`waited\`, so that the lock is taken before the row is written.
  SELECT ${p.kind}::text, ${p.weightsJson}::jsonb FROM waited
  ON CONFLICT (kind) DO UPDATE SET weights = excluded.weights, updated_at = now()
  RETURNING kind
)
SELECT kind, pg_notify('${Channels.stepsAvailable}', kind) AS notified FROM upserted
`,
);

/** Sets a kind's fair share (see the statement). */
export async function setFairShare(db: SqlRunner, p: SetFairShareParams): Promise<void> {
  await db.rows(statement, p);
}
