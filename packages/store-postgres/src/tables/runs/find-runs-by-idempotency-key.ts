import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** What {@link findRunsByIdempotencyKey} looks for. */
export interface FindRunsByIdempotencyKeyParams {
  keys: (string | null)[];
}

/** A run holding one of the keys. */
export interface RunByKeyRow {
  id: string;
  idempotency_key: string;
}

/** The runs that hold the keys, as the key table records them (decision 349). */
const statement = defineStatement<FindRunsByIdempotencyKeyParams, RunByKeyRow>(
  'find-runs-by-idempotency-key',
  (t, p) =>
    `SELECT run_id AS id, key AS idempotency_key FROM ${t.runKeys} WHERE key = ANY(${p.keys}::text[])`,
);

/** Runs that hold any of the given idempotency keys. */
export function findRunsByIdempotencyKey(
  db: SqlRunner,
  p: FindRunsByIdempotencyKeyParams,
): Promise<RunByKeyRow[]> {
  return db.rows(statement, p);
}
