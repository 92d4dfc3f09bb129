import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** The limited kind whose limit row to lock. */
export interface LockKindLimitParams {
  kind: string;
}

interface LockKindLimitRow {
  /** Whether either limit counts per concurrency key; null when the row was not locked. */
  per_key: boolean | null;
  /** Whether the kind has a limit row at all, locked or not. */
  limited: boolean;
  /** Whether the kind's fair-share row was locked; null when it has none. */
  fair_locked: boolean | null;
}

/**
 * Locks a kind's limit row for the claim that counts within it, skipping it when another claim
 * holds it (that claim's worker is taking the kind's places right now), and tells whether the
 * row is there at all: a claim that expected a limit learns that it was removed. A statement of
 * its own, in the claim's transaction, so that the counting statement after it starts, and takes
 * its snapshot, once the lock is held: it then sees every claim that committed before.
 *
 * Only the limited claim runs it. It locks a kind's row in `cyclone_fair_shares` too, so a
 * limited claim that finds the kind put under fair share meanwhile (`fair`) steps aside while
 * holding it: the fair claim, which locks both rows in its own statement (decision 400), and a
 * merely limited claim of the kind never count at once.
 */
const statement = defineStatement<LockKindLimitParams, LockKindLimitRow>(
  'lock-kind-limit',
  (t, p) => `
SELECT (SELECT concurrency_per_key OR rate_per_key FROM ${t.limits}
        WHERE kind = ${p.kind}::text FOR UPDATE SKIP LOCKED) AS per_key,
       EXISTS (SELECT 1 FROM ${t.limits} WHERE kind = ${p.kind}::text) AS limited,
       CASE WHEN EXISTS (SELECT 1 FROM ${t.fairShares} WHERE kind = ${p.kind}::text)
            THEN EXISTS (SELECT 1 FROM ${t.fairShares}
                         WHERE kind = ${p.kind}::text FOR UPDATE SKIP LOCKED) END AS fair_locked
`,
);

/**
 * A kind's limit row as a claim found it: `locked` (this transaction holds it; `perKey`: whether
 * either limit counts per concurrency key; `fair`: the kind is under fair share, whose row it
 * holds too), `busy` (another claim holds one of them) or `gone` (the kind has no limit and no
 * fair share).
 */
export type KindLimitLock =
  | { readonly state: 'locked'; readonly perKey: boolean; readonly fair: boolean }
  | { readonly state: 'busy' | 'gone' };

/** Locks the kind's limit and fair-share rows unless another claim holds one (see the statement). */
export async function lockKindLimit(db: SqlRunner, p: LockKindLimitParams): Promise<KindLimitLock> {
  const row = await db.one(statement, p);
  if (!row) return { state: 'gone' };
  const fair = row.fair_locked !== null;
  if (!row.limited && !fair) return { state: 'gone' };
  if ((row.limited && row.per_key === null) || row.fair_locked === false) return { state: 'busy' };
  return { state: 'locked', perKey: row.per_key ?? false, fair };
}
