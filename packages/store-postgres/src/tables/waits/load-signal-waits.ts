import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** The run whose signal waits to load. */
export interface LoadSignalWaitsParams {
  runId: string;
  /** `waiting_signal`, from core's table. */
  waitingState: string;
}

/** A node waiting for signals. */
export interface SignalWaitRow {
  id: string;
  node: string;
  node_type: string;
  wait_signals: string[];
  wait_n: number;
  /** The payloads gathered so far (a `waitN` short of its quorum), in arrival order. */
  wait_payloads: unknown[];
}

/** A run's nodes that wait for signals, in declaration order (the first that waits consumes). */
const statement = defineStatement<LoadSignalWaitsParams, SignalWaitRow>(
  'load-signal-waits',
  (t, p) => `
SELECT id, node, node_type, wait_signals, coalesce(wait_n, 1) AS wait_n,
       coalesce(wait_payloads, '[]'::jsonb) AS wait_payloads
FROM ${t.stepsHot} s
WHERE ${stepsOfRun('s', `(SELECT ${p.runId}::uuid)`)} AND state = (SELECT ${p.waitingState}::text) AND item_index IS NULL
ORDER BY created_at, id
`,
);

/** Loads the nodes of a run that wait for signals. */
export function loadSignalWaits(db: SqlRunner, p: LoadSignalWaitsParams): Promise<SignalWaitRow[]> {
  return db.rows(statement, p);
}
