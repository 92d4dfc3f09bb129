import type { SqlRunner } from '../../db/sql-runner.js';
import { Channels } from '../../db/channels.js';
import { defineStatement } from '../../db/statement.js';

/** A kind's rate limit. */
export interface SetRateLimitParams {
  kind: string;
  limit: number;
  periodMs: number;
  /** The period as it was given, listed as given. */
  period: string;
  perKey: boolean;
}

/**
 * Creates or replaces a kind's rate limit (its concurrency cap, if any, stays), and wakes the
 * workers of the kind: a raised limit frees steps that waited for their turn.
 */
const statement = defineStatement<SetRateLimitParams, { kind: string }>(
  'set-rate-limit',
  (t, p) => `
WITH upserted AS (
  INSERT INTO ${t.limits} (kind, rate_limit, rate_period_ms, rate_period, rate_per_key)
  VALUES (${p.kind}::text, ${p.limit}::int, ${p.periodMs}::bigint, ${p.period}::text,
          ${p.perKey}::boolean)
  ON CONFLICT (kind) DO UPDATE
  SET rate_limit = excluded.rate_limit, rate_period_ms = excluded.rate_period_ms,
      rate_period = excluded.rate_period, rate_per_key = excluded.rate_per_key,
      updated_at = now()
  RETURNING kind
)
SELECT kind, pg_notify('${Channels.stepsAvailable}', kind) AS notified FROM upserted
`,
);

/** Sets a kind's rate limit (see the statement). */
export async function setRateLimit(db: SqlRunner, p: SetRateLimitParams): Promise<void> {
  await db.rows(statement, p);
}
