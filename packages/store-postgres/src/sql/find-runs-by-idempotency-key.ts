import { defineQuery } from '../query.js';

/** Runs that hold any of the given idempotency keys. */
export const findRunsByIdempotencyKey = defineQuery(
  'find-runs-by-idempotency-key',
  (t) => `SELECT id, idempotency_key FROM ${t.runs} WHERE idempotency_key = ANY($1::text[])`,
);
