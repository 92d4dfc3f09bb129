/**
 * Makes a test database's `cyclone_runs` and `cyclone_steps` range-partitioned on `id`, a UTC day a
 * partition, as decisions 347-352 lay them out: the rows already there are copied into their day's
 * partition, each partition takes the table's storage parameters, every index is made again on
 * the parent (a unique one that lacks the key as a plain one: a partitioned table cannot keep it;
 * the items' `(parent_step_id, item_index)`), and the history view is made again over the new
 * tables.
 */
import type pg from 'pg';

/**
 * Partitions runs and steps: one partition a UTC day from `daysBack` days before today to two
 * days after it, and a default one. One transaction, under the lock order of a claim (steps, then
 * runs).
 */
export async function partitionRunsAndStepsByDay(pool: pg.Pool, daysBack = 10): Promise<void> {
  await pool.query(
    `DO $partition$
DECLARE
  tbl text;
  def record;
  day date;
  storage text;
  utc_today date := (now() AT TIME ZONE 'UTC')::date;
  history text := pg_get_viewdef('cyclone_history'::regclass);
BEGIN
  LOCK TABLE cyclone_steps, cyclone_runs IN ACCESS EXCLUSIVE MODE;
  DROP VIEW cyclone_history;
  FOREACH tbl IN ARRAY ARRAY['cyclone_runs', 'cyclone_steps'] LOOP
    -- Each partition takes the table's storage parameters (fillfactor, autovacuum's thresholds).
    SELECT coalesce(' WITH (' || array_to_string(reloptions, ', ') || ')', '') INTO storage
    FROM pg_class WHERE oid = tbl::regclass;
    CREATE TEMP TABLE flat_indexes ON COMMIT DROP AS
      SELECT pg_get_indexdef(indexrelid) AS sql, indisprimary AS pkey
      FROM pg_index WHERE indrelid = tbl::regclass;
    EXECUTE format('ALTER TABLE %I RENAME TO %I', tbl, tbl || '_flat');
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
                    PARTITION BY RANGE (id)', tbl, tbl || '_flat');
    EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', tbl || '_default', tbl) || storage;
    FOR day IN SELECT d::date FROM generate_series(utc_today - ${Number(daysBack)},
                                                  utc_today + 2, interval '1 day') d LOOP
      EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                     tbl || '_p' || to_char(day, 'YYYYMMDD'), tbl,
                     ${dayBound('day')}, ${dayBound('day + 1')}) || storage;
    END LOOP;
    EXECUTE format('INSERT INTO %I SELECT * FROM %I', tbl, tbl || '_flat');
    EXECUTE format('DROP TABLE %I', tbl || '_flat');
    FOR def IN SELECT * FROM flat_indexes LOOP
      IF def.pkey THEN
        EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (id)', tbl);
      ELSE
        EXECUTE replace(replace(def.sql, 'CREATE UNIQUE INDEX', 'CREATE INDEX'),
                        '.' || tbl || '_flat ', '.' || tbl || ' ');
      END IF;
    END LOOP;
    DROP TABLE flat_indexes;
  END LOOP;
  EXECUTE 'CREATE VIEW cyclone_history AS ' || history;
END
$partition$`,
  );
}

/**
 * Writes `perDay` finished standalone jobs (a run and its one step, sharing the id) into today
 * and each of the `days` UTC days before it, and analyzes both tables: partitions the size of a real
 * deployment's days, so that the planner weighs a probe of every partition against reading them
 * as it would there (on empty partitions reading all of them is the cheaper plan).
 */
export async function fillFinishedJobs(pool: pg.Pool, days: number, perDay: number): Promise<void> {
  const ids = `SELECT (lpad(to_hex((extract(epoch FROM ((now() AT TIME ZONE 'UTC')::date - d)::timestamp)
                                   * 1000)::bigint + g), 12, '0')
                       || '7000' || lpad(to_hex(g), 16, '0'))::uuid AS id
               FROM generate_series(0, $1::int) d, generate_series(1, $2::int) g`;
  await pool.query(
    `INSERT INTO cyclone_runs (id, workflow, open_steps, state, started_at, ended_at)
     SELECT id, 'history.done', 0, 'completed', now(), now() FROM (${ids}) i`,
    [days, perDay],
  );
  await pool.query(
    `INSERT INTO cyclone_steps (id, run_id, node, node_type, kind, state, max_attempts, attempts,
                                output, started_at, ended_at)
     SELECT id, id, 'job', 'task', 'history.done', 'completed', 1, 1, 'null', now(), now()
     FROM (${ids}) i`,
    [days, perDay],
  );
  await pool.query('ANALYZE cyclone_runs, cyclone_steps');
}

/** SQL of the smallest UUID version 7 of a UTC day's first millisecond (`day`, a date): its bound. */
function dayBound(day: string): string {
  return `(SELECT (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-0000-0000-000000000000')::uuid
            FROM lpad(to_hex((extract(epoch FROM (${day})::timestamp) * 1000)::bigint), 12, '0') h)`;
}
