import { EventType } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { Channels } from '../../db/channels.js';
import { defineStatement } from '../../db/statement.js';
import { sqlConstant, recordEvents } from '../events/record-events.js';
import type { Prefixed, SingleFromChangeParams } from '../transitions/change-params.js';
import { storedClaimEvent } from '../events/claim-event.js';

/** The sweep's bound and the two reclaim changes. */
export interface ReclaimExpiredLeasesParams
  extends SingleFromChangeParams, Prefixed<'paused', SingleFromChangeParams> {
  limit: number;
  /** The run state that redirects the step to `paused` (`running -> paused` by `reclaim`). */
  pausedRunState: string;
}

/** A reclaimed step. */
export interface ReclaimedStepRow {
  id: string;
  run_id: string;
  node: string;
  state: string;
  reclaims: number;
}

/**
 * The recovery sweep's first half: running steps whose lease expired go back to available (or
 * paused, in a paused run) with `reclaims` incremented, no attempt charged and no backoff. A step
 * already reclaimed `max_reclaims` times is left for the second half (`find-reclaim-limited`).
 * Locks runs before steps, in id order, like every writer.
 */
const statement = defineStatement<ReclaimExpiredLeasesParams, ReclaimedStepRow>(
  'reclaim-expired-leases',
  (t, p) => `
WITH expired AS (
  SELECT s.id, s.run_id FROM ${t.stepsHot} s JOIN ${t.runsHot} r ON r.id = s.run_id
  WHERE s.state = 'running' AND s.lease_expires_at < now()
    AND (r.max_reclaims IS NULL OR s.reclaims < r.max_reclaims)
  ORDER BY s.lease_expires_at
  LIMIT (SELECT ${p.limit}::int)
), locked_runs AS (
  SELECT r.id, r.state = (SELECT ${p.pausedRunState}::text) AS paused FROM ${t.runsHot} r
  WHERE r.id IN (SELECT run_id FROM expired)
  ORDER BY r.id FOR UPDATE
), moved AS (
  UPDATE ${t.stepsHot} s
  SET state = CASE WHEN l.paused THEN (SELECT ${p.pausedToState}::text) ELSE (SELECT ${p.toState}::text) END,
      reclaims = s.reclaims + 1, scheduled_at = now(), lease_expires_at = NULL
  FROM expired e, locked_runs l
  WHERE s.id = e.id AND l.id = e.run_id AND s.lease_expires_at < now()
    AND s.state = ANY(CASE WHEN l.paused THEN (SELECT ${p.pausedFromStates}::text[])
                           ELSE (SELECT ${p.fromStates}::text[]) END)
  RETURNING s.id, s.run_id, s.node, s.kind, s.state, s.reclaims, s.claimed_by, l.paused,
            s.attempts, s.started_event_id, s.started_at
), counted AS (
  UPDATE ${t.runsHot} r SET reclaim_count = r.reclaim_count + m.n
  FROM (SELECT run_id, count(*)::int AS n FROM moved GROUP BY run_id) m
  WHERE r.id = m.run_id
), events AS (
  ${recordEvents(t, storedClaimEvent('moved', 'attempts + 1'), {
    source: 'moved',
    type: sqlConstant(EventType.StepReclaimed),
    from: `CASE WHEN paused THEN (SELECT ${p.pausedEventFrom}::text) ELSE (SELECT ${p.eventFrom}::text) END`,
    to: 'state',
    trigger: `CASE WHEN paused THEN (SELECT ${p.pausedTrigger}::text) ELSE (SELECT ${p.trigger}::text) END`,
    detail: `jsonb_build_object('reclaims', reclaims, 'worker', claimed_by)`,
  })}
), notified AS (
  SELECT pg_notify('${Channels.stepsAvailable}', kind)
  FROM (SELECT DISTINCT kind FROM moved WHERE NOT paused) k
)
SELECT id, run_id, node, state, reclaims, (SELECT count(*) FROM notified) AS notified FROM moved
`,
);

/** Reclaims expired leases (see the statement). */
export function reclaimExpiredLeases(
  db: SqlRunner,
  p: ReclaimExpiredLeasesParams,
): Promise<ReclaimedStepRow[]> {
  return db.rows(statement, p);
}
