import type { Executor } from '../../db/executor.js';
import { defineStatement } from '../../db/statement.js';

/** A leader lease and who asks for it. */
export interface LeadershipParams {
  name: string;
  holder: string;
}

/** {@link LeadershipParams} with the lease's length. */
export interface AttemptLeadershipParams extends LeadershipParams {
  leaseMs: number;
}

/** The lease as held after the attempt. */
export interface LeaderRow {
  holder: string;
  expires_at: Date;
}

/**
 * Takes or renews a named leader lease. Returns a row only when the caller holds the lease
 * afterwards: it held it already, or the previous holder's lease had expired.
 */
const statement = defineStatement<AttemptLeadershipParams, LeaderRow>(
  'attempt-leadership',
  (t, p) => `
INSERT INTO ${t.leaders} AS l (name, holder, expires_at)
VALUES (${p.name}, ${p.holder}, now() + ${p.leaseMs}::bigint * interval '1 millisecond')
ON CONFLICT (name) DO UPDATE
SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
WHERE l.holder = EXCLUDED.holder OR l.expires_at < now()
RETURNING holder, expires_at
`,
);

/** Takes or renews a leader lease; true while `holder` leads. */
export async function attemptLeadership(
  db: Executor,
  p: AttemptLeadershipParams,
): Promise<boolean> {
  return (await db.rows(statement, p)).length > 0;
}
