import type { Executor } from '../../db/executor.js';
import { defineStatement } from '../../db/statement.js';

/** The limited kind whose limit row to lock. */
export interface LockKindLimitParams {
  kind: string;
}

/**
 * Locks a kind's limit row for the claim that counts within it, skipping it when another claim
 * holds it (that claim's worker is taking the kind's places right now). A statement of its own,
 * in the claim's transaction, so that the counting statement after it starts, and takes its
 * snapshot, once the lock is held: it then sees every claim that committed before.
 */
const statement = defineStatement<LockKindLimitParams, LockedKindLimit>(
  'lock-kind-limit',
  (t, p) => `
SELECT concurrency_per_key OR rate_per_key AS per_key
FROM ${t.limits} WHERE kind = ${p.kind}::text FOR UPDATE SKIP LOCKED
`,
);

/** A kind's limit row, locked. */
export interface LockedKindLimit {
  /** Whether either limit counts per concurrency key. */
  per_key: boolean;
}

/**
 * Locks the kind's limit row; resolves undefined when another claim holds it or it is gone.
 */
export function lockKindLimit(
  db: Executor,
  p: LockKindLimitParams,
): Promise<LockedKindLimit | undefined> {
  return db.one(statement, p);
}
