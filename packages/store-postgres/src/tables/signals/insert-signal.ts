import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** A signal to store with its run. */
export interface InsertSignalParams {
  runId: string;
  name: string;
  payloadJson: string;
  /** The sender's id; null for a signal sent without one. */
  signalId: string | null;
}

/** The stored signal. */
export interface InsertedSignalRow {
  id: string;
}

/**
 * Stores a signal with its run; a signal whose id the run already has is not stored again (the
 * unique index on `(run_id, signal_id)`), so the same signal sent twice is delivered once.
 */
const statement = defineStatement<InsertSignalParams, InsertedSignalRow>(
  'insert-signal',
  (t, p) => `
INSERT INTO ${t.signals} (run_id, name, payload, signal_id)
VALUES (${p.runId}, ${p.name}, ${p.payloadJson}::jsonb, ${p.signalId}::text)
ON CONFLICT (run_id, signal_id) WHERE signal_id IS NOT NULL DO NOTHING
RETURNING id
`,
);

/** Stores a signal; undefined when the run already has a signal with that id. */
export function insertSignal(
  db: SqlRunner,
  p: InsertSignalParams,
): Promise<InsertedSignalRow | undefined> {
  return db.one(statement, p);
}
