import { defineQuery } from '../query.js';
import { Channels } from './channels.js';

/**
 * The recovery sweep's first half: running steps whose lease expired go back to available (or
 * paused, in a paused run) with `reclaims` incremented, no attempt charged and no backoff. A step
 * already reclaimed `max_reclaims` times is left for the second half (`discard-reclaim-limited`).
 * Locks runs before steps, in id order, like every writer.
 *
 * $1 limit, $2 allowed from-states into available, $3 allowed from-states into paused.
 */
export const reclaimExpiredLeases = defineQuery(
  'reclaim-expired-leases',
  (t) => `
WITH expired AS (
  SELECT s.id, s.run_id FROM ${t.steps} s JOIN ${t.runs} r ON r.id = s.run_id
  WHERE s.state = 'running' AND s.lease_expires_at < now()
    AND (r.max_reclaims IS NULL OR s.reclaims < r.max_reclaims)
  ORDER BY s.lease_expires_at
  LIMIT $1
), locked_runs AS (
  SELECT r.id, r.state FROM ${t.runs} r WHERE r.id IN (SELECT run_id FROM expired)
  ORDER BY r.id FOR UPDATE
), moved AS (
  UPDATE ${t.steps} s
  SET state = CASE WHEN l.state = 'paused' THEN 'paused' ELSE 'available' END,
      reclaims = s.reclaims + 1, scheduled_at = now(), lease_expires_at = NULL
  FROM expired e, locked_runs l
  WHERE s.id = e.id AND l.id = e.run_id AND s.lease_expires_at < now()
    AND s.state = ANY(CASE WHEN l.state = 'paused' THEN $3::text[] ELSE $2::text[] END)
  RETURNING s.id, s.run_id, s.node, s.kind, s.state, s.reclaims, s.claimed_by
), counted AS (
  UPDATE ${t.runs} r SET reclaim_count = r.reclaim_count + m.n
  FROM (SELECT run_id, count(*)::int AS n FROM moved GROUP BY run_id) m
  WHERE r.id = m.run_id
), events AS (
  INSERT INTO ${t.events} (run_id, step_id, node, type, from_state, to_state, detail)
  SELECT run_id, id, node, 'step_reclaimed', 'running', state,
         jsonb_build_object('reclaims', reclaims, 'worker', claimed_by)
  FROM moved
), notified AS (
  SELECT pg_notify('${Channels.stepsAvailable}', kind)
  FROM (SELECT DISTINCT kind FROM moved WHERE state = 'available') k
)
SELECT id, run_id, node, state, reclaims, (SELECT count(*) FROM notified) AS notified FROM moved
`,
);
