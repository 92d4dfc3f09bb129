import type { Executor } from '../db/executor.js';
import { Channels } from '../db/channels.js';
import { defineStatement } from '../db/statement.js';

/** A run change and what it records. */
export interface SetRunStateParams {
  runId: string;
  toState: string;
  fromStates: readonly string[];
  trigger: string;
  terminal: boolean;
  errorKind: string | null;
  error: string | null;
  failedNode: string | null;
  eventType: string;
}

/** The moved run. */
export interface MovedRunRow {
  id: string;
  state: string;
}

/**
 * Moves a run to a new state when its current state allows it, records the event (with the run's
 * previous state), and on a terminal state stamps `ended_at` and notifies waiters. Runs inside the
 * transaction that holds the run's lock.
 */
const statement = defineStatement<SetRunStateParams, MovedRunRow>(
  'set-run-state',
  (t, p) => `
WITH previous AS (
  SELECT state FROM ${t.runs} WHERE id = ${p.runId}
), changed AS (
  UPDATE ${t.runs} r
  SET state = ${p.toState}::text,
      ended_at = CASE WHEN ${p.terminal}::boolean THEN now() ELSE NULL END,
      error_kind = coalesce(${p.errorKind}::text, r.error_kind),
      error = coalesce(${p.error}::text, r.error),
      failed_node = coalesce(${p.failedNode}::text, r.failed_node)
  WHERE r.id = ${p.runId} AND r.state = ANY(${p.fromStates}::text[])
  RETURNING r.id, r.state
), events AS (
  INSERT INTO ${t.events} (run_id, type, from_state, to_state, trigger, error_kind)
  SELECT c.id, ${p.eventType}::text, p.state, c.state, ${p.trigger}::text, ${p.errorKind}::text
  FROM changed c, previous p
), notified AS (
  SELECT pg_notify('${Channels.runsEnded}', id::text) FROM changed WHERE ${p.terminal}::boolean
)
SELECT c.id, c.state, (SELECT count(*) FROM notified) AS notified FROM changed c
`,
);

/** Applies a run change (see the statement); empty when the run's state did not allow it. */
export function setRunState(db: Executor, p: SetRunStateParams): Promise<MovedRunRow[]> {
  return db.rows(statement, p);
}
