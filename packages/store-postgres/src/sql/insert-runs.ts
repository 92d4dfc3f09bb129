import { defineQuery } from '../query.js';
import { Channels } from './channels.js';

/**
 * Submits runs in bulk: definitions, runs, their steps and a `run_submitted` event each, in one
 * statement (so one transaction, and one round trip however many runs). A run whose idempotency
 * key already exists is skipped with its steps; the caller looks the existing run up.
 * Newly claimable kinds are notified on commit.
 */
export const insertRuns = defineQuery(
  'insert-runs',
  (t) => `
WITH defs AS (
  INSERT INTO ${t.workflows} (hash, name, definition)
  SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[])
  ON CONFLICT (hash) DO NOTHING
), new_runs AS (
  INSERT INTO ${t.runs} (id, workflow, definition_hash, input, idempotency_key, deadline_at,
                         max_reclaims, open_steps, parent_run_id, parent_step_id)
  SELECT r.id, r.workflow, r.definition_hash, r.input, r.idempotency_key,
         now() + r.deadline_ms * interval '1 millisecond', r.max_reclaims, r.open_steps,
         r.parent_run_id, r.parent_step_id
  FROM unnest($4::uuid[], $5::text[], $6::text[], $7::jsonb[], $8::text[], $9::bigint[],
              $10::int[], $11::int[], $12::uuid[], $13::uuid[])
       AS r(id, workflow, definition_hash, input, idempotency_key, deadline_ms, max_reclaims,
            open_steps, parent_run_id, parent_step_id)
  ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
  RETURNING id
), new_steps AS (
  INSERT INTO ${t.steps} (id, run_id, node, node_type, kind, state, depends_on, deps_remaining,
                          on_dep_failure, max_attempts, timeout_ms, backoff, scheduled_at,
                          wait_signals, wait_n, max_wait_ms, wait_deadline_at, wait_for_ms,
                          max_parallel)
  SELECT s.id, s.run_id, s.node, s.node_type, s.kind, s.state,
         ARRAY(SELECT jsonb_array_elements_text(s.depends_on)), s.deps_remaining,
         s.on_dep_failure, s.max_attempts, s.timeout_ms, s.backoff,
         coalesce(s.run_at, now() + coalesce(s.delay_ms, 0) * interval '1 millisecond'),
         CASE WHEN s.wait_signals IS NULL THEN NULL
              ELSE ARRAY(SELECT jsonb_array_elements_text(s.wait_signals)) END,
         s.wait_n, s.max_wait_ms,
         CASE WHEN s.state IN ('waiting_signal', 'waiting_child') AND s.max_wait_ms IS NOT NULL
              THEN now() + s.max_wait_ms * interval '1 millisecond' END,
         s.wait_for_ms, s.max_parallel
  FROM unnest($14::uuid[], $15::uuid[], $16::text[], $17::text[], $18::text[], $19::text[],
              $20::jsonb[], $21::int[], $22::text[], $23::int[], $24::int[], $25::jsonb[],
              $26::bigint[], $27::jsonb[], $28::int[], $29::bigint[], $30::bigint[], $31::int[],
              $32::timestamptz[])
       AS s(id, run_id, node, node_type, kind, state, depends_on, deps_remaining, on_dep_failure,
            max_attempts, timeout_ms, backoff, delay_ms, wait_signals, wait_n, max_wait_ms,
            wait_for_ms, max_parallel, run_at)
  WHERE s.run_id IN (SELECT id FROM new_runs)
  RETURNING kind, state, scheduled_at
), events AS (
  INSERT INTO ${t.events} (run_id, type, to_state)
  SELECT id, 'run_submitted', 'running' FROM new_runs
), notified AS (
  SELECT pg_notify('${Channels.stepsAvailable}', kind)
  FROM (SELECT DISTINCT kind FROM new_steps
        WHERE state = 'available' AND kind IS NOT NULL AND scheduled_at <= now()) k
)
SELECT id, (SELECT count(*) FROM notified) AS notified FROM new_runs
`,
);
