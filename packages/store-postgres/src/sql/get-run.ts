import { defineQuery } from '../query.js';
import { runColumns } from './run-columns.js';

/** One run by id. */
export const getRun = defineQuery(
  'get-run',
  (t) => `SELECT ${runColumns(t)} FROM ${t.runs} r WHERE r.id = $1`,
);
