-- A standalone job's step shares its run's id and stays out of the run index (decision 302): the
-- primary key finds it, and the job's enqueue, claim and completion write no entry there. Steps
-- inserted before keep their own ids and stay in the index.
DROP INDEX "cyclone_steps_run_idx";--> statement-breakpoint
CREATE INDEX "cyclone_steps_run_idx" ON "cyclone_steps" USING btree ("run_id","item_index") WHERE "cyclone_steps"."id" <> "cyclone_steps"."run_id";--> statement-breakpoint
-- The history's rows told by steps take their run id from the run they join: a read of one run's
-- history (`WHERE run_id = $1`) finds the run by its key and its steps through the key or the
-- index, as every statement of the store does (`db/steps-of-run.ts`).
CREATE OR REPLACE VIEW cyclone_history AS
SELECT e.id, e.run_id, e.step_id, e.node, e.type, e.from_state, e.to_state, e.trigger,
       e.error_kind, e.detail, e.at
FROM cyclone_events e
UNION ALL
SELECT s.ready_event_id, r.id, s.id, s.node, 'step_ready'::text, 'pending'::text,
       'available'::text, 'promote'::text, NULL::text, NULL::jsonb, s.ready_at
FROM cyclone_runs r
JOIN cyclone_steps s ON s.run_id = r.id AND (s.id = r.id OR s.id <> s.run_id)
WHERE s.ready_event_id IS NOT NULL
UNION ALL
SELECT s.started_event_id, r.id, s.id, s.node, 'step_started'::text, 'available'::text,
       'running'::text, 'claim'::text, NULL::text,
       jsonb_build_object('attempt', s.attempts + CASE WHEN s.state = 'running' THEN 1 ELSE 0 END,
                          'worker', s.claimed_by),
       s.started_at
FROM cyclone_runs r
JOIN cyclone_steps s ON s.run_id = r.id AND (s.id = r.id OR s.id <> s.run_id)
WHERE s.started_event_id IS NOT NULL
  AND (s.state = 'running' OR s.completed_event_id IS NOT NULL)
UNION ALL
SELECT s.completed_event_id, r.id, s.id, s.node, 'step_completed'::text, 'running'::text,
       'completed'::text, 'complete'::text, NULL::text, jsonb_build_object('attempt', s.attempts),
       s.ended_at
FROM cyclone_runs r
JOIN cyclone_steps s ON s.run_id = r.id AND (s.id = r.id OR s.id <> s.run_id)
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
