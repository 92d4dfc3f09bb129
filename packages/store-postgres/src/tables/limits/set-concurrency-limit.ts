import type { SqlRunner } from '../../db/sql-runner.js';
import { Channels } from '../../db/channels.js';
import { defineStatement } from '../../db/statement.js';

/** A kind's concurrency cap. */
export interface SetConcurrencyLimitParams {
  kind: string;
  max: number;
  perKey: boolean;
}

/**
 * Creates or replaces a kind's concurrency cap (its rate limit, if any, stays), and wakes the
 * workers of the kind: a raised cap frees steps that waited for a place.
 */
const statement = defineStatement<SetConcurrencyLimitParams, { kind: string }>(
  'set-concurrency-limit',
  (t, p) => `
WITH upserted AS (
  INSERT INTO ${t.limits} (kind, concurrency_max, concurrency_per_key)
  VALUES (${p.kind}::text, ${p.max}::int, ${p.perKey}::boolean)
  ON CONFLICT (kind) DO UPDATE
  SET concurrency_max = excluded.concurrency_max,
      concurrency_per_key = excluded.concurrency_per_key, updated_at = now()
  RETURNING kind
)
SELECT kind, pg_notify('${Channels.stepsAvailable}', kind) AS notified FROM upserted
`,
);

/** Sets a kind's concurrency cap (see the statement). */
export async function setConcurrencyLimit(
  db: SqlRunner,
  p: SetConcurrencyLimitParams,
): Promise<void> {
  await db.rows(statement, p);
}
