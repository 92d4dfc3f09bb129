import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { freedPlacesNotice } from './freed-places-notice.js';
import { recordEvents } from '../events/record-events.js';
import type { SingleFromChangeParams } from '../transitions/change-params.js';
import { storedClaimEvent } from '../events/claim-event.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** A discard of a running step and the change it makes. */
export interface DiscardStepParams extends SingleFromChangeParams {
  stepId: string;
  claimToken: string;
  error: string;
  errorKind: string;
  panicStack: string | null;
  eventType: string;
  detail: string;
  /** Whether the discard charges an attempt (not for the reclaim limit). */
  chargeAttempt: boolean;
  /**
   * Discard only if the lease has expired: the reclaim limit. The sweep found the step expired
   * before it took the run's lock, and a heartbeat may have renewed the lease since; a live lease
   * wins.
   */
  requireExpiredLease: boolean;
}

/** The discarded step. */
export interface DiscardedStepRow {
  id: string;
  run_id: string;
  node: string;
  attempts: number;
}

/**
 * Discards a running step (a permanent error, the last attempt failed, the reclaim limit), fenced
 * by its claim token, and counts it off its run's open steps. Runs inside the transaction that
 * holds the run's lock; the caller then settles the run (fail-fast or branch cancellation, the
 * run's new state).
 */
const statement = defineStatement<DiscardStepParams, DiscardedStepRow>(
  'discard-step',
  (t, p) => `
WITH gone AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.toState}::text),
      attempts = s.attempts + CASE WHEN (SELECT ${p.chargeAttempt}::boolean) THEN 1 ELSE 0 END,
      error = (SELECT ${p.error}::text), error_kind = (SELECT ${p.errorKind}::text),
      panic_stack = (SELECT ${p.panicStack}::text), ended_at = now(), lease_expires_at = NULL
  WHERE s.id = (SELECT ${p.stepId}::uuid) AND s.claim_token = (SELECT ${p.claimToken}::uuid)
    AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
    AND (NOT (SELECT ${p.requireExpiredLease}::boolean) OR s.lease_expires_at < now())
  RETURNING s.id, s.run_id, s.node, s.kind, s.attempts, s.started_at, s.started_event_id, s.claimed_by
), counted AS (
  UPDATE ${t.runsHot} r
  SET open_steps = r.open_steps - 1,
      failure_count = r.failure_count + CASE WHEN (SELECT ${p.chargeAttempt}::boolean) THEN 1 ELSE 0 END,
      started_at = coalesce(r.started_at, (SELECT min(x.started_at) FROM ${t.stepsHot} x
                                           WHERE ${stepsOfRun('x', 'r.id')}))
  FROM gone WHERE r.id = gone.run_id
), events AS (
  ${recordEvents(
    t,
    storedClaimEvent(
      'gone',
      `attempts + CASE WHEN (SELECT ${p.chargeAttempt}::boolean) THEN 0 ELSE 1 END`,
    ),
    {
      source: 'gone',
      type: `(SELECT ${p.eventType}::text)`,
      from: `(SELECT ${p.eventFrom}::text)`,
      to: `(SELECT ${p.toState}::text)`,
      trigger: `(SELECT ${p.trigger}::text)`,
      errorKind: `(SELECT ${p.errorKind}::text)`,
      detail: `(SELECT ${p.detail}::jsonb)`,
    },
  )}
), freed AS (${freedPlacesNotice(t, 'gone', true)}
)
SELECT id, run_id, node, attempts, (SELECT count(*) FROM freed) AS notified FROM gone
`,
);

/** Discards a running step (see the statement); empty when fenced out. */
export function discardStep(db: SqlRunner, p: DiscardStepParams): Promise<DiscardedStepRow[]> {
  return db.rows(statement, p);
}
