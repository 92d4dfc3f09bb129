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

const statement = defineStatement<FindRunsByIdempotencyKeyParams, RunByKeyRow>(
  'find-runs-by-idempotency-key',
  (t, p) =>
    `SELECT id, idempotency_key FROM ${t.runs} WHERE idempotency_key = ANY(${p.keys}::text[])`,
);

/** Runs that hold any of the given idempotency keys. */
export function findRunsByIdempotencyKey(
  db: SqlRunner,
  p: FindRunsByIdempotencyKeyParams,
): Promise<RunByKeyRow[]> {
  return db.rows(statement, p);
}
