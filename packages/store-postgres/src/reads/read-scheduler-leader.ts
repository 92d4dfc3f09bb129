import type { SqlRunner } from '../db/sql-runner.js';
import { defineStatement } from '../db/statement.js';

/** The database's clock, and a leader lease as stored (nulls when it was never held). */
export interface LeaderRow {
  now: Date;
  holder: string | null;
  renewed_at: Date | null;
  expires_at: Date | null;
  led_since: Date | null;
  /** Whether the lease is held now (not expired, not given up). */
  active: boolean | null;
}

/** Reads the named leader lease with the database's clock: always one row. */
const statement = defineStatement<{ name: string }, LeaderRow>(
  'read-scheduler-leader',
  (t, p) => `
SELECT now() AS now, l.holder, l.renewed_at, l.expires_at, l.led_since,
       l.expires_at > now() AS active
FROM (SELECT 1) one LEFT JOIN ${t.leaders} l ON l.name = ${p.name}
`,
);

/** Reads the lease `name` (the scheduler's is `scheduler`) and the database's clock. */
export async function readSchedulerLeader(db: SqlRunner, name: string): Promise<LeaderRow> {
  return (await db.one(statement, { name }))!;
}
