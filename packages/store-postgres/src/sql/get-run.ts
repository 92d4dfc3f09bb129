import { defineQuery } from '../query.js';
import { RUN_COLUMNS } from './run-columns.js';

/** One run by id. */
export const getRun = defineQuery(
  'get-run',
  (t) => `SELECT ${RUN_COLUMNS} FROM ${t.runs} WHERE id = $1`,
);
