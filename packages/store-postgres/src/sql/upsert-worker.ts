import { defineQuery } from '../query.js';

/** Registers a worker, or refreshes it, with the kinds it handles. $1 id, $2 kinds. */
export const upsertWorker = defineQuery(
  'upsert-worker',
  (t) => `
INSERT INTO ${t.workers} (id, kinds) VALUES ($1, $2::text[])
ON CONFLICT (id) DO UPDATE SET kinds = EXCLUDED.kinds, last_seen_at = now()
`,
);
