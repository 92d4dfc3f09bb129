import type { SqlRunner } from '../../db/sql-runner.js';
import { Channels } from '../../db/channels.js';
import { defineStatement } from '../../db/statement.js';

/** Which of a kind's limits to remove. */
export interface RemoveLimitParams {
  kind: string;
  /** True removes the concurrency cap, false the rate limit. */
  concurrency: boolean;
}

/**
 * Removes a kind's concurrency cap or rate limit: the row goes when the other limit is not set,
 * else only this limit's columns are cleared (exactly one of the two applies). The kind's workers
 * are woken: what waited for the limit can start now. Its recorded starts stay until the next
 * rate limit's claims purge them.
 */
const statement = defineStatement<RemoveLimitParams, { kind: string }>(
  'remove-limit',
  (t, p) => `
WITH gone AS (
  DELETE FROM ${t.limits}
  WHERE kind = ${p.kind}::text
    AND CASE WHEN ${p.concurrency}::boolean
             THEN concurrency_max IS NOT NULL AND rate_limit IS NULL
             ELSE rate_limit IS NOT NULL AND concurrency_max IS NULL END
  RETURNING kind
), cleared AS (
  UPDATE ${t.limits}
  SET concurrency_max = CASE WHEN ${p.concurrency}::boolean THEN NULL ELSE concurrency_max END,
      concurrency_per_key = CASE WHEN ${p.concurrency}::boolean THEN false
                                 ELSE concurrency_per_key END,
      rate_limit = CASE WHEN ${p.concurrency}::boolean THEN rate_limit ELSE NULL END,
      rate_period_ms = CASE WHEN ${p.concurrency}::boolean THEN rate_period_ms ELSE NULL END,
      rate_period = CASE WHEN ${p.concurrency}::boolean THEN rate_period ELSE NULL END,
      rate_per_key = CASE WHEN ${p.concurrency}::boolean THEN rate_per_key ELSE false END,
      updated_at = now()
  WHERE kind = ${p.kind}::text
    AND concurrency_max IS NOT NULL AND rate_limit IS NOT NULL
  RETURNING kind
), removed AS (
  SELECT kind FROM gone UNION ALL SELECT kind FROM cleared
)
SELECT kind, pg_notify('${Channels.stepsAvailable}', kind) AS notified FROM removed
`,
);

/** Removes a kind's concurrency cap or rate limit; false when it had none. */
export async function removeLimit(db: SqlRunner, p: RemoveLimitParams): Promise<boolean> {
  return (await db.rows(statement, p)).length > 0;
}
