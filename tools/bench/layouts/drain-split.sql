-- The split layout: the claim writes the narrow hot row only, the completion the hot row, the cold
-- row (output, attempts) and the run.
WITH picked AS (
  SELECT id FROM cyclone_steps_hot WHERE kind = 'k' AND state = 'available'
  ORDER BY priority DESC NULLS LAST, scheduled_at LIMIT 500 FOR UPDATE SKIP LOCKED
), tok AS MATERIALIZED (SELECT gen_random_uuid() AS t), c AS (
  UPDATE cyclone_steps_hot s
  SET state = 'running', claim_token = (SELECT t FROM tok), claimed_by = 'w',
      lease_expires_at = now() + interval '30 seconds', started_at = now(),
      started_event_id = nextval('cyclone_events_id_seq')
  WHERE s.id = ANY(ARRAY(SELECT id FROM picked))
  RETURNING s.id, s.claim_token
)
SELECT coalesce(array_agg(c.id), '{}') AS ids, coalesce(array_agg(c.claim_token), '{}') AS toks,
       count(x.node) AS n
FROM c JOIN cyclone_steps x ON x.id = c.id \gset
WITH input AS (
  SELECT * FROM unnest(:ids::uuid[], :toks::uuid[]) AS i(id, token)
), hot AS (
  UPDATE cyclone_steps_hot s
  SET state = 'completed', ended_at = now(), lease_expires_at = NULL
  FROM input i WHERE s.id = ANY(:ids::uuid[]) AND s.id = i.id AND s.claim_token = i.token AND s.state = 'running'
  RETURNING s.id, s.started_at
), done AS (
  UPDATE cyclone_steps s
  SET output = '{}'::jsonb, attempts = s.attempts + 1, completed_event_id = nextval('cyclone_events_id_seq')
  FROM hot h WHERE s.id = h.id
  RETURNING s.run_id, h.started_at
), per_run AS (SELECT run_id, count(*) AS n, min(started_at) AS first_started FROM done GROUP BY run_id)
UPDATE cyclone_runs r
SET open_steps = r.open_steps - p.n, started_at = coalesce(r.started_at, p.first_started),
    state = CASE WHEN r.open_steps = p.n THEN 'completed' ELSE r.state END,
    ended_at = CASE WHEN r.open_steps = p.n THEN now() ELSE r.ended_at END
FROM per_run p WHERE r.id = p.run_id;
