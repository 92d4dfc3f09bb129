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
 */
const statement = defineStatement<SetFairShareParams, { kind: string }>(
  'set-fair-share',
  (t, p) => `
WITH upserted AS (
  INSERT INTO ${t.fairShares} (kind, weights)
  VALUES (${p.kind}::text, ${p.weightsJson}::jsonb)
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
