import { defineQuery } from '../query.js';
import { runColumns } from './run-columns.js';

/** Several runs by id (for waiters woken by one notification). */
export const getRuns = defineQuery(
  'get-runs',
  (t) => `SELECT ${runColumns(t)} FROM ${t.runs} r WHERE r.id = ANY($1::uuid[])`,
);
