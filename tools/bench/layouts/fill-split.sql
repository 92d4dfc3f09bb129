-- Fills n available jobs of kind k in the split layout (psql -v n=N).
WITH ids AS (
  -- A job's step has its run's id, which keeps it out of the run index (decision 302).
  SELECT run_id, run_id AS step_id
  FROM (SELECT ('00000000-0000-7000-8000-' || lpad(to_hex(nextval('layout_ids')), 12, '0'))::uuid
               AS run_id
        FROM generate_series(1, :n)) AS g
), runs AS (
  INSERT INTO cyclone_runs (id, workflow, state, input, open_steps)
  SELECT run_id, 'k', 'running', '{}'::jsonb, 1 FROM ids
), cold AS (
  INSERT INTO cyclone_steps (id, run_id, node, node_type, max_attempts)
  SELECT step_id, run_id, 'k', 'task', 25 FROM ids
)
INSERT INTO cyclone_steps_hot (id, kind, state) SELECT step_id, 'k', 'available' FROM ids;
