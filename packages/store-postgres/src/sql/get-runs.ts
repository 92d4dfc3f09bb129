import { defineQuery } from '../query.js';
import { RUN_COLUMNS } from './run-columns.js';

/** Several runs by id (for waiters woken by one notification). */
export const getRuns = defineQuery(
  'get-runs',
  (t) => `SELECT ${RUN_COLUMNS} FROM ${t.runs} WHERE id = ANY($1::uuid[])`,
);
