import { defineQuery } from '../query.js';
import { runColumns } from './run-columns.js';

/**
 * Runs newest first, filtered by state, workflow and creation time, paginated by a keyset cursor
 * (the `created_at` and id of the last row of the previous page; `cursor_at` is `created_at` at
 * full microsecond precision, which a JavaScript Date would lose). Null filters match everything.
 *
 * $1 states, $2 workflow, $3 created after, $4 created before, $5 cursor time, $6 cursor id,
 * $7 limit.
 */
export const listRuns = defineQuery(
  'list-runs',
  (t) => `
SELECT ${runColumns(t)}, r.created_at::text AS cursor_at FROM ${t.runs} r
WHERE ($1::text[] IS NULL OR r.state = ANY($1::text[]))
  AND ($2::text IS NULL OR r.workflow = $2::text)
  AND ($3::timestamptz IS NULL OR r.created_at >= $3::timestamptz)
  AND ($4::timestamptz IS NULL OR r.created_at < $4::timestamptz)
  AND ($5::timestamptz IS NULL OR (r.created_at, r.id) < ($5::timestamptz, $6::uuid))
ORDER BY r.created_at DESC, r.id DESC
LIMIT $7
`,
);
