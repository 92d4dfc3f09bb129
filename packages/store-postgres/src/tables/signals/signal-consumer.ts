import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The signal whose consumer to read: by its row id, or by the sender's id. */
export interface SignalConsumerParams {
  runId: string;
  rowId: string | null;
  signalId: string | null;
}

/** The node that consumed the signal (null while the signal is buffered). */
export interface SignalConsumerRow {
  node: string | null;
}

const statement = defineStatement<SignalConsumerParams, SignalConsumerRow>(
  'signal-consumer',
  (t, p) => `
SELECT s.node FROM ${t.signals} g LEFT JOIN ${t.steps} s ON s.id = g.consumed_by
WHERE g.run_id = (SELECT ${p.runId}::uuid)
  AND (g.id = (SELECT ${p.rowId}::bigint) OR g.signal_id = (SELECT ${p.signalId}::text))
LIMIT 1
`,
);

/** Which node consumed a run's signal; undefined for an unknown signal. */
export function signalConsumer(
  db: SqlRunner,
  p: SignalConsumerParams,
): Promise<SignalConsumerRow | undefined> {
  return db.one(statement, p);
}
