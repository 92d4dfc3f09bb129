import type { Executor } from '../../db/executor.js';
import { Channels } from '../../db/channels.js';
import { defineStatement } from '../../db/statement.js';

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
  /**
   * The event the move records; null records none (`run_completed`: a completed run's row tells
   * it, see reads/run-row-events.ts).
   */
  eventType: string | null;
}

/** The moved run. */
export interface MovedRunRow {
  id: string;
  state: string;
  /** A child run's parent, which a terminal move wrote to the settlement outbox. */
  parent_run_id: string | null;
}

/**
 * Moves a run to a new state when its current state allows it, records the event (with the run's
 * previous state), and on a terminal state stamps `ended_at`, notifies waiters and writes a child
 * run's parent to the settlement outbox. Runs inside the
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
  RETURNING r.id, r.state, r.parent_run_id
), parent_marked AS (
  -- A child run that ends leaves work for its parent's child node: the parent goes to the
  -- settlement outbox in this same statement, so the end of a child is never lost.
  INSERT INTO ${t.settlements} (run_id)
  SELECT parent_run_id FROM changed WHERE ${p.terminal}::boolean AND parent_run_id IS NOT NULL
  ON CONFLICT (run_id) DO NOTHING
), events AS (
  INSERT INTO ${t.events} (run_id, type, from_state, to_state, trigger, error_kind)
  SELECT c.id, ${p.eventType}::text, p.state, c.state, ${p.trigger}::text, ${p.errorKind}::text
  FROM changed c, previous p
  WHERE ${p.eventType}::text IS NOT NULL
), notified AS (
  SELECT pg_notify('${Channels.runsEnded}', id::text) FROM changed WHERE ${p.terminal}::boolean
)
SELECT c.id, c.state, c.parent_run_id, (SELECT count(*) FROM notified) AS notified FROM changed c
`,
);

/** Applies a run change (see the statement); empty when the run's state did not allow it. */
export function setRunState(db: Executor, p: SetRunStateParams): Promise<MovedRunRow[]> {
  return db.rows(statement, p);
}
