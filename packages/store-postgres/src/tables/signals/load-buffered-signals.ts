import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The run whose buffered signals to load. */
export interface LoadBufferedSignalsParams {
  runId: string;
}

/** A signal no node has consumed yet. */
export interface BufferedSignalRow {
  /** int8, as `pg` returns it. */
  id: string;
  name: string;
  payload: unknown;
}

/** A run's signals that no node consumed yet, oldest first. */
const statement = defineStatement<LoadBufferedSignalsParams, BufferedSignalRow>(
  'load-buffered-signals',
  (t, p) => `
SELECT id, name, payload FROM ${t.signals}
WHERE run_id = ${p.runId} AND consumed_by IS NULL
ORDER BY id
`,
);

/** Loads a run's buffered signals, oldest first. */
export function loadBufferedSignals(
  db: SqlRunner,
  p: LoadBufferedSignalsParams,
): Promise<BufferedSignalRow[]> {
  return db.rows(statement, p);
}
