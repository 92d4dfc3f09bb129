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
 * events, signals, settlement markers and idempotency keys (which a new submission may then take),
 * in one statement, from the partitions retention empties row by row: the initial ones (rows stored
 * before runs and steps were partitioned) and the default ones (ids in no period), each by its own
 * name, so no period's partition is visited. A run in a period leaves with its period's partitions,
 * dropped whole once every run of it is past the retention (`maintainPeriodPartitions`); a run's
 * steps and events are in its range, so in the same kind of partition as its row. A run ends after
 * it was created, so `created_at` (indexed) bounds the scan; no index is added on a column a
 * transition writes, so run updates stay HOT. Rows locked by a writer are skipped and taken at a
 * later pass.
 */
const statement = defineStatement<DeleteFinishedRunsParams, { id: string }>(
  'delete-finished-runs',
  (t, p) => {
    // The oldest expired runs of one partition, locked.
    const expired = (partition: string) => `
  SELECT id, idempotency_key IS NOT NULL AS keyed FROM ${partition}
  WHERE created_at < now() - ${p.retentionMs}::bigint * interval '1 millisecond'
    AND ended_at < now() - ${p.retentionMs}::bigint * interval '1 millisecond'
    AND state = ANY(${p.terminalStates}::text[])
  ORDER BY created_at
  LIMIT ${p.limit}
  FOR UPDATE SKIP LOCKED`;
    return `
WITH initial AS (${expired(t.runsInitial)}
), strays AS (${expired(t.runsDefault)}
), doomed AS (
  SELECT id, keyed FROM initial UNION ALL SELECT id, keyed FROM strays
), initial_steps AS (
  DELETE FROM ${t.stepsInitial} s WHERE ${stepsOfRuns('s', 'ARRAY(SELECT id FROM initial)')}
), default_steps AS (
  DELETE FROM ${t.stepsDefault} s WHERE ${stepsOfRuns('s', 'ARRAY(SELECT id FROM strays)')}
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
), initial_runs AS (
  DELETE FROM ${t.runsInitial} WHERE id IN (SELECT id FROM initial) RETURNING id
), default_runs AS (
  DELETE FROM ${t.runsDefault} WHERE id IN (SELECT id FROM strays) RETURNING id
)
SELECT id FROM initial_runs UNION ALL SELECT id FROM default_runs
`;
  },
);

/** Deletes a batch of expired finished runs (see the statement); returns how many. */
export function deleteFinishedRuns(db: SqlRunner, p: DeleteFinishedRunsParams): Promise<number> {
  return db.count(statement, p);
}
