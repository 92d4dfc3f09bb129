import { defineQuery } from '../query.js';

/** Forgets a worker that stopped. $1 id. */
export const removeWorker = defineQuery(
  'remove-worker',
  (t) => `DELETE FROM ${t.workers} WHERE id = $1`,
);
