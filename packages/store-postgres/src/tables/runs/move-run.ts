import type { Executor } from '../../db/executor.js';
import { Channels } from '../../db/channels.js';
import { defineStatement } from '../../db/statement.js';

/** An operator's (or a scanner's) run change and what it records. */
export interface MoveRunParams {
  runId: string;
  toState: string;
  fromStates: readonly string[];
  trigger: string;
  eventType: string;
  /** A terminal target stamps `ended_at` and notifies waiters; any other clears `ended_at`. */
  terminal: boolean;
  /** Pausing stamps `paused_at`; every other change clears it. */
  pausing: boolean;
  /** Retry clears the run's error, error kind and failed node. */
  clearError: boolean;
  /** Recorded on the run when not null (a deadline). */
  errorKind: string | null;
  error: string | null;
  /** Terminal step states: `open_steps` is recounted as the steps in none of them. */
  terminalStepStates: readonly string[];
}

/** The moved run, with how long its pause lasted when it was paused. */
export interface MovedRunRow {
  id: string;
  state: string;
  paused_ms: string | null;
  /** A child run's parent, which a terminal move wrote to the settlement outbox. */
  parent_run_id: string | null;
}

/**
 * Moves a run when its current state allows the change, recounts its open steps from the steps
 * written earlier in the transaction, and records the event. Runs inside the transaction that
 * holds the run's lock. A terminal move of a child run writes its parent to the settlement outbox.
 */
const statement = defineStatement<MoveRunParams, MovedRunRow>(
  'move-run',
  (t, p) => `
WITH previous AS (
  SELECT state, paused_at FROM ${t.runs} WHERE id = ${p.runId}
), changed AS (
  UPDATE ${t.runs} r
  SET state = ${p.toState}::text,
      ended_at = CASE WHEN ${p.terminal}::boolean THEN now() ELSE NULL END,
      paused_at = CASE WHEN ${p.pausing}::boolean THEN now() ELSE NULL END,
      error_kind = CASE WHEN ${p.clearError}::boolean THEN NULL
                        ELSE coalesce(${p.errorKind}::text, r.error_kind) END,
      error = CASE WHEN ${p.clearError}::boolean THEN NULL
                   ELSE coalesce(${p.error}::text, r.error) END,
      failed_node = CASE WHEN ${p.clearError}::boolean THEN NULL ELSE r.failed_node END,
      open_steps = (SELECT count(*) FROM ${t.steps} s
                    WHERE s.run_id = r.id AND s.state <> ALL(${p.terminalStepStates}::text[]))
  WHERE r.id = ${p.runId} AND r.state = ANY(${p.fromStates}::text[])
  RETURNING r.id, r.state, r.parent_run_id
), parent_marked AS (
  -- A child run that ends (cancelled, failed by its deadline) leaves work for its parent's child
  -- node: the parent goes to the settlement outbox in this same statement.
  INSERT INTO ${t.settlements} (run_id)
  SELECT parent_run_id FROM changed WHERE ${p.terminal}::boolean AND parent_run_id IS NOT NULL
  ON CONFLICT (run_id) DO NOTHING
), events AS (
  INSERT INTO ${t.events} (run_id, type, from_state, to_state, trigger, error_kind)
  SELECT c.id, ${p.eventType}::text, p.state, c.state, ${p.trigger}::text, ${p.errorKind}::text
  FROM changed c, previous p
), notified AS (
  SELECT pg_notify('${Channels.runsEnded}', id::text) FROM changed WHERE ${p.terminal}::boolean
)
SELECT c.id, c.state, c.parent_run_id,
       (SELECT (extract(epoch FROM now() - p.paused_at) * 1000)::bigint FROM previous p) AS paused_ms,
       (SELECT count(*) FROM notified) AS notified
FROM changed c
`,
);

/** Applies a run change (see the statement); empty when the run's state did not allow it. */
export function moveRun(db: Executor, p: MoveRunParams): Promise<MovedRunRow[]> {
  return db.rows(statement, p);
}
