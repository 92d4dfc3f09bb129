-- A run's whole history: the events stored in cyclone_events and those its rows tell, which are
-- never stored (decisions 130 and 134): a run's submission and completion (the run row), and the
-- latest claim of each step while it runs or ended in a handler's success, with that success (the
-- step row). Each told event has a fixed id: a step's were taken from the events' sequence by its
-- claim and its completion; a run's are 0 and 9007199254740991 (Number.MAX_SAFE_INTEGER), first
-- and last. Every (from_state, to_state, trigger) below is a row of core's transition table; the
-- test harness checks the history it reads here against the table. Read it by run:
--   SELECT * FROM cyclone_history WHERE run_id = $1 ORDER BY id;
CREATE VIEW cyclone_history AS
SELECT e.id, e.run_id, e.step_id, e.node, e.type, e.from_state, e.to_state, e.trigger,
       e.error_kind, e.detail, e.at
FROM cyclone_events e
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
