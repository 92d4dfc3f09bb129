import type { SqlRunner } from '../../db/sql-runner.js';
import { Channels } from '../../db/channels.js';
import { defineStatement } from '../../db/statement.js';
import type { ChangeParams } from '../transitions/change-params.js';
import { recordEvents } from '../events/record-events.js';
import { TerminalStepStates } from '../transitions/terminal-states.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** A run change and what it records. */
export interface MoveRunParams extends ChangeParams {
  runId: string;
  /**
   * The event the move records; null records none (`run_completed`: a completed run's row tells
   * it, see `tables/events/run-row-events.ts`).
   */
  eventType: string | null;
  /** A terminal target stamps `ended_at` and notifies waiters; any other clears `ended_at`. */
  terminal: boolean;
  /** Pausing stamps `paused_at`; every other change clears it. */
  pausing: boolean;
  /** Retry clears the run's error, error kind and failed node. */
  clearError: boolean;
  /** Recorded on the run when not null (a failure, a deadline). */
  errorKind: string | null;
  error: string | null;
  failedNode: string | null;
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
 * The one writer of a run's state: moves a run when its current state allows the change, recounts
 * its open steps from the steps written earlier in the transaction, and records the event (with
 * the run's previous state). On a terminal state it stamps `ended_at`, notifies waiters and
 * writes a child run's parent to the settlement outbox in this same statement, so the end of a
 * child is never lost. Runs inside the transaction that holds the run's lock.
 */
const statement = defineStatement<
  MoveRunParams & { terminalStepStates: readonly string[] },
  MovedRunRow
>(
  'move-run',
  (t, p) => `
WITH previous AS (
  SELECT state, paused_at FROM ${t.runsHot} WHERE id = (SELECT ${p.runId}::uuid)
), changed AS (
  UPDATE ${t.runsHot} r
  SET state = (SELECT ${p.toState}::text),
      ended_at = CASE WHEN (SELECT ${p.terminal}::boolean) THEN now() ELSE NULL END,
      paused_at = CASE WHEN (SELECT ${p.pausing}::boolean) THEN now() ELSE NULL END,
      error_kind = CASE WHEN (SELECT ${p.clearError}::boolean) THEN NULL
                        ELSE coalesce((SELECT ${p.errorKind}::text), r.error_kind) END,
      error = CASE WHEN (SELECT ${p.clearError}::boolean) THEN NULL
                   ELSE coalesce((SELECT ${p.error}::text), r.error) END,
      failed_node = CASE WHEN (SELECT ${p.clearError}::boolean) THEN NULL
                         ELSE coalesce((SELECT ${p.failedNode}::text), r.failed_node) END,
      open_steps = (SELECT count(*) FROM ${t.stepsHot} s
                    WHERE ${stepsOfRun('s', 'r.id')} AND s.state <> ALL((SELECT ${p.terminalStepStates}::text[])::text[]))
  WHERE r.id = (SELECT ${p.runId}::uuid) AND r.state = ANY((SELECT ${p.fromStates}::text[])::text[])
  RETURNING r.id, r.state, r.parent_run_id
), parent_marked AS (
  INSERT INTO ${t.settlements} (run_id)
  SELECT parent_run_id FROM changed WHERE (SELECT ${p.terminal}::boolean) AND parent_run_id IS NOT NULL
  ON CONFLICT (run_id) DO NOTHING
), events AS (
  ${recordEvents(t, {
    source: 'changed c, previous p',
    where: `(SELECT ${p.eventType}::text) IS NOT NULL`,
    runId: 'c.id',
    stepId: 'NULL',
    node: 'NULL',
    type: `(SELECT ${p.eventType}::text)`,
    from: 'p.state',
    to: 'c.state',
    trigger: `(SELECT ${p.trigger}::text)`,
    errorKind: `(SELECT ${p.errorKind}::text)`,
  })}
), notified AS (
  SELECT pg_notify('${Channels.runsEnded}', id::text) FROM changed WHERE (SELECT ${p.terminal}::boolean)
)
SELECT c.id, c.state, c.parent_run_id,
       (SELECT (extract(epoch FROM now() - p.paused_at) * 1000)::bigint FROM previous p) AS paused_ms,
       (SELECT count(*) FROM notified) AS notified
FROM changed c
`,
);

/** Why a run failed, as its row records it. */
export interface RunFailure {
  readonly errorKind: string;
  readonly error: string | null;
  readonly failedNode: string | null;
}

/**
 * The parameters of a move to a terminal state (`ended_at` stamped, waiters told, a child run's
 * parent marked), recording `failure` on the run when it failed.
 */
export function terminalMove(
  runId: string,
  change: ChangeParams,
  eventType: string | null,
  failure?: RunFailure,
): MoveRunParams {
  return {
    runId,
    ...change,
    eventType,
    terminal: true,
    pausing: false,
    clearError: false,
    errorKind: failure?.errorKind ?? null,
    error: failure?.error ?? null,
    failedNode: failure?.failedNode ?? null,
  };
}

/**
 * The parameters of a move that leaves a run open (`ended_at` cleared): a pause (`paused_at`
 * stamped), a resume, or a retry (`clearError`: the run's error, error kind and failed node go).
 */
export function openMove(
  runId: string,
  change: ChangeParams,
  eventType: string,
  how: { readonly pausing?: boolean; readonly clearError?: boolean } = {},
): MoveRunParams {
  return {
    runId,
    ...change,
    eventType,
    terminal: false,
    pausing: how.pausing ?? false,
    clearError: how.clearError ?? false,
    errorKind: null,
    error: null,
    failedNode: null,
  };
}

/** Applies a run change (see the statement); undefined when the run's state did not allow it. */
export function moveRun(db: SqlRunner, p: MoveRunParams): Promise<MovedRunRow | undefined> {
  return db.one(statement, { ...p, terminalStepStates: TerminalStepStates });
}
