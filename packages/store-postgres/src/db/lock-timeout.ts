import type { SqlRunner } from './sql-runner.js';
import { defineStatement } from './statement.js';

/**
 * Bounds how long the rest of the transaction waits for a lock (`SET LOCAL lock_timeout`, as a
 * function so the value is a bound parameter). It ends with the transaction, so nothing is left
 * on a pooled session.
 */
const statement = defineStatement<{ timeout: string }>(
  'set-lock-timeout',
  (_t, p) => `SELECT set_config('lock_timeout', ${p.timeout}, true)`,
);

/** Sets the transaction's lock timeout, in milliseconds. */
export async function setLockTimeout(tx: SqlRunner, ms: number): Promise<void> {
  await tx.rows(statement, { timeout: `${Math.max(1, Math.round(ms))}ms` });
}
