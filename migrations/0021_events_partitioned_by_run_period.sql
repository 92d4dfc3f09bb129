-- Events are partitioned by their run's id (decisions 320-323). A run id is a UUID version 7, so
-- its first 48 bits are the run's creation time in milliseconds: a range of run ids is a period of
-- runs, and every event of a run lives in its period's partition. Every read of events names one
-- run (`run_id = $1`), so it visits one partition. The scheduler creates the period partitions
-- ahead of time and drops a period's partition, with every event in it at once, when retention
-- has deleted every run of the period: no row-by-row delete and no dead tuples.
--
-- The events already stored become the partition of every run id below the start of the next UTC
-- day (`cyclone_events_initial`); the table is renamed, not copied. Attaching it reads it once to
-- check that bound, under the migration's lock. The default partition takes the events of any run
-- whose id falls in no period (an id made elsewhere, or one ahead of the partitions created).
ALTER TABLE "cyclone_events" RENAME TO "cyclone_events_initial";--> statement-breakpoint
ALTER TABLE "cyclone_events_initial" RENAME CONSTRAINT "cyclone_events_pkey" TO "cyclone_events_initial_pkey";--> statement-breakpoint
CREATE TABLE "cyclone_events" (
	"id" bigint DEFAULT nextval('cyclone_events_id_seq'::regclass) NOT NULL,
	"run_id" uuid NOT NULL,
	"step_id" uuid,
	"node" text,
	"type" text NOT NULL,
	"from_state" text,
	"to_state" text,
	"at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
	"error_kind" text,
	"detail" jsonb,
	"trigger" text,
	CONSTRAINT "cyclone_events_pkey" PRIMARY KEY("run_id","id")
) PARTITION BY RANGE ("run_id");--> statement-breakpoint
ALTER SEQUENCE "cyclone_events_id_seq" OWNED BY "cyclone_events"."id";--> statement-breakpoint
CREATE TABLE "cyclone_events_default" PARTITION OF "cyclone_events" DEFAULT;--> statement-breakpoint
DO $$
DECLARE
  -- The start of the next UTC day as the smallest UUID version 7 of that millisecond.
  ms text := lpad(to_hex((extract(epoch FROM date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day') * 1000)::bigint), 12, '0');
  bound uuid := (substr(ms, 1, 8) || '-' || substr(ms, 9, 4) || '-0000-0000-000000000000')::uuid;
BEGIN
  -- Events of runs whose ids are not below the bound (not made by Cyclone's clock) move to the
  -- default partition, so the bound holds for every row kept.
  INSERT INTO cyclone_events_default SELECT id, run_id, step_id, node, type, from_state, to_state,
    at, error_kind, detail, trigger FROM cyclone_events_initial WHERE run_id >= bound;
  DELETE FROM cyclone_events_initial WHERE run_id >= bound;
  EXECUTE format('ALTER TABLE cyclone_events ATTACH PARTITION cyclone_events_initial FOR VALUES FROM (MINVALUE) TO (%L)', bound);
END $$;--> statement-breakpoint
-- The view named the renamed table; it now reads the partitioned one.
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
