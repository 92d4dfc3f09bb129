import type { SqlRunner } from './sql-runner.js';
import { defineStatement } from './statement.js';

/** The database clock. */
const statement = defineStatement<Record<string, never>, { now: Date }>(
  'database-now',
  () => `SELECT now() AS now`,
);

/** Reads `now()`: inside a transaction, the transaction's start. */
export async function databaseNow(db: SqlRunner): Promise<Date> {
  return (await db.one(statement, {}))!.now;
}
