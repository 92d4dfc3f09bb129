-- Runs and steps are partitioned by their run's period, as events are (decisions 347-352 and
-- 430-449). A run id is a UUID version 7 whose first 48 bits are its creation time, and a step's
-- id is made in its run's millisecond (decision 348), so a run, its steps and its events live in
-- one period, a UTC day, and leave together: the scheduler drops the period's three partitions
-- once every run of it ended longer ago than the retention, deleting no row.
--
-- The rows already stored are not copied. Each table is renamed `<table>_initial` and attached as
-- the partition of every id below a bound; the parent takes the old name and the indexes it keeps,
-- and the attach adopts the initial table's own indexes instead of building new ones. Attaching
-- reads the table to check the bound, under this migration's lock, unless a validated
-- `CHECK (id < '<uuid>'::uuid)` on the table implies it: docs/scaling.md gives the two online
-- steps that add one beforehand, and the migration then takes the smallest such bound. Without
-- one, the bound is the start of the UTC day three days ahead, and rows above it (ids not made by
-- Cyclone's clock) move to the default partition first. The default partitions take every id in no
-- period. A fan-out's items are unique per `(parent_step_id, item_index)` by an index on each
-- partition (the parent cannot hold a unique index without the key); the initial table keeps its
-- own. The tables are locked steps first, then runs: the order a claim takes them.
LOCK TABLE "cyclone_steps", "cyclone_runs" IN ACCESS EXCLUSIVE MODE;--> statement-breakpoint
DO $$
DECLARE
  tbl text;
  initial text;
  -- The start of the UTC day three days ahead as the smallest UUID version 7 of that millisecond.
  ms text := lpad(to_hex((extract(epoch FROM date_trunc('day', now() AT TIME ZONE 'UTC') + interval '3 days') * 1000)::bigint), 12, '0');
  ahead uuid := (substr(ms, 1, 8) || '-' || substr(ms, 9, 4) || '-0000-0000-000000000000')::uuid;
  id_bound constant text := '^CHECK \(\(id < ''([0-9a-f-]{36})''::uuid\)\)$';
  bound uuid;
  storage text;
  defs text[];
  names text[];
  def text;
  c record;
BEGIN
  FOREACH tbl IN ARRAY ARRAY['cyclone_steps', 'cyclone_runs'] LOOP
    initial := tbl || '_initial';
    -- A validated CHECK (id < bound) spares the attach its scan; the smallest one is the bound.
    bound := NULL;
    SELECT substring(pg_get_constraintdef(k.oid) FROM id_bound)::uuid INTO bound
      FROM pg_constraint k
      WHERE k.conrelid = tbl::regclass AND k.contype = 'c' AND k.convalidated
        AND pg_get_constraintdef(k.oid) ~ id_bound
      ORDER BY 1 LIMIT 1;
    SELECT coalesce(' WITH (' || array_to_string(reloptions, ', ') || ')', '') INTO storage
      FROM pg_class WHERE oid = tbl::regclass;
    -- The indexes as defined now, naming the table by the name the parent takes. The unique ones
    -- other than the primary key cannot be the parent's: they stay the initial table's own.
    SELECT coalesce(array_agg(pg_get_indexdef(x.indexrelid) ORDER BY r.relname)
                      FILTER (WHERE NOT x.indisunique), '{}'),
           coalesce(array_agg(r.relname::text ORDER BY r.relname), '{}')
      INTO defs, names
      FROM pg_index x JOIN pg_class r ON r.oid = x.indexrelid
      WHERE x.indrelid = tbl::regclass;
    EXECUTE format('ALTER TABLE %I RENAME TO %I', tbl, initial);
    FOREACH def IN ARRAY names LOOP
      EXECUTE format('ALTER INDEX %I RENAME TO %I', def, initial || substr(def, length(tbl) + 1));
    END LOOP;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (id)', tbl, initial);
    -- A bound meant for the initial table is not the parent's.
    FOR c IN SELECT conname FROM pg_constraint
             WHERE conrelid = tbl::regclass AND contype = 'c' AND pg_get_constraintdef(oid) ~ id_bound LOOP
      EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', tbl, c.conname);
    END LOOP;
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY (id)', tbl, tbl || '_pkey');
    FOREACH def IN ARRAY defs LOOP
      EXECUTE def;
    END LOOP;
    EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT%s', tbl || '_default', tbl, storage);
    IF bound IS NULL THEN
      -- No constraint: rows above the bound (ids not made by Cyclone's clock) go to the default
      -- partition, so the bound holds for every row kept, and the attach checks it by a scan.
      bound := ahead;
      EXECUTE format('INSERT INTO %I SELECT * FROM %I WHERE id >= %L', tbl || '_default', initial, bound);
      EXECUTE format('DELETE FROM %I WHERE id >= %L', initial, bound);
    END IF;
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', tbl, initial, bound);
    -- The partition's bound says it all now.
    FOR c IN SELECT conname FROM pg_constraint
             WHERE conrelid = initial::regclass AND contype = 'c' AND pg_get_constraintdef(oid) ~ id_bound LOOP
      EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', initial, c.conname);
    END LOOP;
    -- Who could read and write the table can read and write its parent and default partition.
    FOR c IN SELECT a.privilege_type, a.grantee, a.is_grantable
             FROM pg_class t, aclexplode(t.relacl) a
             WHERE t.oid = initial::regclass AND a.grantee <> t.relowner LOOP
      EXECUTE format('GRANT %s ON %I, %I TO %s%s', c.privilege_type, tbl, tbl || '_default',
        CASE WHEN c.grantee = 0 THEN 'PUBLIC' ELSE c.grantee::regrole::text END,
        CASE WHEN c.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
    END LOOP;
  END LOOP;
END $$;--> statement-breakpoint
-- Each partition holds a fan-out's items unique; the initial partition keeps the index it had.
CREATE UNIQUE INDEX "cyclone_steps_default_parent_idx" ON "cyclone_steps_default" USING btree ("parent_step_id","item_index") WHERE "parent_step_id" IS NOT NULL;--> statement-breakpoint
-- The view named the renamed tables; it now reads the partitioned ones.
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
