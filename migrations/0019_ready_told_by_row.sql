-- A task's promotion by the completion of its last dependency is told by its step row (decision
-- 300), as a claim's step_started and a success's step_completed are: the id the promotion took
-- from the events' sequence and the moment of it. A reopen, the one move back to pending, stores
-- the event under that id before it clears them, so the row only ever tells its latest promotion.
ALTER TABLE "cyclone_steps" ADD COLUMN "ready_event_id" bigint;--> statement-breakpoint
ALTER TABLE "cyclone_steps" ADD COLUMN "ready_at" timestamp with time zone;--> statement-breakpoint
CREATE OR REPLACE VIEW cyclone_history AS
SELECT e.id, e.run_id, e.step_id, e.node, e.type, e.from_state, e.to_state, e.trigger,
       e.error_kind, e.detail, e.at
FROM cyclone_events e
UNION ALL
SELECT s.ready_event_id, s.run_id, s.id, s.node, 'step_ready'::text, 'pending'::text,
       'available'::text, 'promote'::text, NULL::text, NULL::jsonb, s.ready_at
FROM cyclone_steps s
WHERE s.ready_event_id IS NOT NULL
UNION ALL
SELECT s.started_event_id, s.run_id, s.id, s.node, 'step_started'::text, 'available'::text,
       'running'::text, 'claim'::text, NULL::text,
       jsonb_build_object('attempt', s.attempts + CASE WHEN s.state = 'running' THEN 1 ELSE 0 END,
                          'worker', s.claimed_by),
       s.started_at
FROM cyclone_steps s
WHERE s.started_event_id IS NOT NULL
  AND (s.state = 'running' OR s.completed_event_id IS NOT NULL)
UNION ALL
SELECT s.completed_event_id, s.run_id, s.id, s.node, 'step_completed'::text, 'running'::text,
       'completed'::text, 'complete'::text, NULL::text, jsonb_build_object('attempt', s.attempts),
       s.ended_at
FROM cyclone_steps s
WHERE s.completed_event_id IS NOT NULL
UNION ALL
SELECT 0::bigint, r.id, NULL::uuid, NULL::text, 'run_submitted'::text, NULL::text,
       'running'::text, 'submit'::text, NULL::text, NULL::jsonb, r.created_at
FROM cyclone_runs r
UNION ALL
SELECT 9007199254740991::bigint, r.id, NULL::uuid, NULL::text, 'run_completed'::text,
       -- The state the run's last stored run event left it in: running, or paused when a step in
       -- progress at a pause finished it.
       coalesce((SELECT x.to_state FROM cyclone_events x
                 WHERE x.run_id = r.id AND x.step_id IS NULL
                 ORDER BY x.id DESC LIMIT 1), 'running'),
       'completed'::text, 'complete'::text, NULL::text, NULL::jsonb,
       -- The row's end is its transaction's start; an event's time is the moment of its insert.
       greatest(r.ended_at, (SELECT max(x.at) FROM cyclone_events x WHERE x.run_id = r.id))
FROM cyclone_runs r
WHERE r.state = 'completed';
