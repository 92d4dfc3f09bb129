import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** A compacted period's range of run ids, `[from, to)`, and the retention of its runs. */
export interface DeleteExpiredKeptRunsParams {
  from: string;
  to: string;
  retentionMs: number;
  terminalStates: readonly string[];
}

/**
 * Deletes the runs of a compacted period (its `_kept` partitions) that ended longer ago than the
 * retention, with their steps, events, signals, settlement markers and idempotency keys: the few runs that outlived
 * their period leave one by one, as their own retention ends. The range confines every delete to
 * the period's partitions (a step's id is made in its run's millisecond). Rows locked by a writer
 * are skipped and taken at a later pass.
 */
const statement = defineStatement<DeleteExpiredKeptRunsParams, { id: string }>(
  'delete-expired-kept-runs',
  (t, p) => `
WITH doomed AS (
  SELECT id FROM ${t.runs}
  WHERE id >= ${p.from}::uuid AND id < ${p.to}::uuid
    AND state = ANY(${p.terminalStates}::text[])
    AND ended_at < now() - ${p.retentionMs}::bigint * interval '1 millisecond'
  FOR UPDATE SKIP LOCKED
), steps AS (
  DELETE FROM ${t.steps}
  WHERE id >= ${p.from}::uuid AND id < ${p.to}::uuid AND run_id IN (SELECT id FROM doomed)
), events AS (
  DELETE FROM ${t.events}
  WHERE run_id >= ${p.from}::uuid AND run_id < ${p.to}::uuid AND run_id IN (SELECT id FROM doomed)
), signals AS (
  DELETE FROM ${t.signals} WHERE run_id IN (SELECT id FROM doomed)
), settlements AS (
  DELETE FROM ${t.settlements} WHERE run_id IN (SELECT id FROM doomed)
), run_keys AS (
  DELETE FROM ${t.runKeys} WHERE run_id IN (SELECT id FROM doomed)
)
DELETE FROM ${t.runs}
WHERE id >= ${p.from}::uuid AND id < ${p.to}::uuid AND id IN (SELECT id FROM doomed)
RETURNING id
`,
);

/** Deletes the expired runs of a compacted period (see the statement); returns how many. */
export function deleteExpiredKeptRuns(
  db: SqlRunner,
  p: DeleteExpiredKeptRunsParams,
): Promise<number> {
  return db.count(statement, p);
}
