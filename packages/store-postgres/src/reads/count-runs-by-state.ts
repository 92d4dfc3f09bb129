import type { Executor } from '../db/executor.js';
import { defineStatement } from '../db/statement.js';

/** Runs by state. A sequential scan of the runs table: for scrapes, not for hot paths. */
const statement = defineStatement<Record<string, never>, { state: string; count: number }>(
  'count-runs-by-state',
  (t) => `SELECT state, count(*)::int AS count FROM ${t.runs} GROUP BY state ORDER BY state`,
);

/** How many runs each state holds (states with none are left out). */
export function countRunsByState(db: Executor): Promise<{ state: string; count: number }[]> {
  return db.rows(statement, {});
}
