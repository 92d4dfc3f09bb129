import { defineQuery } from '../query.js';

/** Gives up a leader lease the caller holds, so another replica can take over at once. */
export const resignLeadership = defineQuery(
  'resign-leadership',
  (t) => `DELETE FROM ${t.leaders} WHERE name = $1 AND holder = $2`,
);
