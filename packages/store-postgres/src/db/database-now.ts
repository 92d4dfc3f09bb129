import type { Executor } from './executor.js';
import { defineStatement } from './statement.js';

/** The database clock. */
const statement = defineStatement<Record<string, never>, { now: Date }>(
  'database-now',
  () => `SELECT now() AS now`,
);

/** Reads `now()`: inside a transaction, the transaction's start. */
export async function databaseNow(db: Executor): Promise<Date> {
  return (await db.one(statement, {}))!.now;
}
