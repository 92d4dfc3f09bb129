import type { Executor } from '../../db/executor.js';
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
}

/**
 * Locks a kind's limit row for the claim that counts within it, skipping it when another claim
 * holds it (that claim's worker is taking the kind's places right now), and tells whether the
 * row is there at all: a claim that expected a limit learns that it was removed. A statement of
 * its own, in the claim's transaction, so that the counting statement after it starts, and takes
 * its snapshot, once the lock is held: it then sees every claim that committed before.
 */
const statement = defineStatement<LockKindLimitParams, LockKindLimitRow>(
  'lock-kind-limit',
  (t, p) => `
SELECT (SELECT concurrency_per_key OR rate_per_key FROM ${t.limits}
        WHERE kind = ${p.kind}::text FOR UPDATE SKIP LOCKED) AS per_key,
       EXISTS (SELECT 1 FROM ${t.limits} WHERE kind = ${p.kind}::text) AS limited
`,
);

/**
 * A kind's limit row as a claim found it: `locked` (this transaction holds it; `perKey`: whether
 * either limit counts per concurrency key), `busy` (another claim holds it) or `gone` (the kind
 * has no limit).
 */
export type KindLimitLock =
  { readonly state: 'locked'; readonly perKey: boolean } | { readonly state: 'busy' | 'gone' };

/** Locks the kind's limit row unless another claim holds it (see the statement). */
export async function lockKindLimit(db: Executor, p: LockKindLimitParams): Promise<KindLimitLock> {
  const row = await db.one(statement, p);
  if (!row?.limited) return { state: 'gone' };
  return row.per_key === null ? { state: 'busy' } : { state: 'locked', perKey: row.per_key };
}
