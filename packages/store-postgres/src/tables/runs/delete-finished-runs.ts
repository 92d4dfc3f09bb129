import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { stepsOfRuns } from '../../db/steps-of-run.js';

/** Which finished runs the retention sweep deletes. */
export interface DeleteFinishedRunsParams {
  /** Runs that ended longer ago than this are deleted. */
  retentionMs: number;
  terminalStates: readonly string[];
  limit: number;
}

/**
 * Deletes up to `limit` finished runs that ended longer ago than the retention, with their steps,
 * signals, settlement markers and idempotency keys (which a new submission may then take), in one
 * statement. Their events are deleted here only where they sit in the initial or the default
 * partition of `cyclone_events`; in a period's partition they stay until the partition is dropped
 * whole, once every run of the period is deleted (`maintainEventPartitions`). A run ends after it
 * was created, so `created_at` (indexed) bounds the scan; no index is added on a column a
 * transition writes, so run updates stay HOT. Rows locked by a writer are skipped and taken at a
 * later pass.
 */
const statement = defineStatement<DeleteFinishedRunsParams, { id: string }>(
  'delete-finished-runs',
  (t, p) => `
WITH doomed AS (
  SELECT id, idempotency_key IS NOT NULL AS keyed FROM ${t.runs}
  WHERE created_at < now() - ${p.retentionMs}::bigint * interval '1 millisecond'
    AND ended_at < now() - ${p.retentionMs}::bigint * interval '1 millisecond'
    AND state = ANY(${p.terminalStates}::text[])
  ORDER BY created_at
  LIMIT ${p.limit}
  FOR UPDATE SKIP LOCKED
), steps AS (
  DELETE FROM ${t.steps} s WHERE ${stepsOfRuns('s', 'ARRAY(SELECT id FROM doomed)')}
), initial_events AS (
  DELETE FROM ${t.eventsInitial} WHERE run_id IN (SELECT id FROM doomed)
), default_events AS (
  DELETE FROM ${t.eventsDefault} WHERE run_id IN (SELECT id FROM doomed)
), signals AS (
  DELETE FROM ${t.signals} WHERE run_id IN (SELECT id FROM doomed)
), settlements AS (
  DELETE FROM ${t.settlements} WHERE run_id IN (SELECT id FROM doomed)
), run_keys AS (
  -- A key is taken while its run exists: it is freed with the run. Only a run submitted with a
  -- key has a row there, so only those are looked up.
  DELETE FROM ${t.runKeys} WHERE run_id IN (SELECT id FROM doomed WHERE keyed)
)
DELETE FROM ${t.runs} WHERE id IN (SELECT id FROM doomed) RETURNING id
`,
);

/** Deletes a batch of expired finished runs (see the statement); returns how many. */
export function deleteFinishedRuns(db: SqlRunner, p: DeleteFinishedRunsParams): Promise<number> {
  return db.count(statement, p);
}
