-- The step row split into a narrow hot part (what the claim, the completion's state change and the
-- state-partial indexes touch) and the wide cold rest (node, dependencies, output; the run index).
-- The history view reads the moved columns; the prototype does without it.
DROP VIEW IF EXISTS cyclone_history CASCADE;
DROP INDEX cyclone_steps_claim_idx, cyclone_steps_discarded_idx, cyclone_steps_parent_state_idx,
  cyclone_steps_running_idx, cyclone_steps_timer_idx, cyclone_steps_wait_deadline_idx;
ALTER TABLE cyclone_steps DROP CONSTRAINT cyclone_steps_state_check, DROP CONSTRAINT cyclone_steps_error_kind_check;
CREATE TABLE cyclone_steps_hot (
  id uuid PRIMARY KEY,
  kind text,
  state text NOT NULL CHECK (state = ANY (ARRAY['pending','available','running','waiting_signal','waiting_timer','waiting_child','paused','completed','discarded','cancelled'])),
  priority bigint NOT NULL DEFAULT 0,
  scheduled_at timestamptz NOT NULL DEFAULT now(),
  concurrency_key text,
  claim_token uuid,
  claimed_by text,
  lease_expires_at timestamptz,
  started_at timestamptz,
  started_event_id bigint,
  ended_at timestamptz,
  error_kind text,
  wait_deadline_at timestamptz,
  parent_step_id uuid,
  item_index integer
);
ALTER TABLE cyclone_steps DROP COLUMN kind, DROP COLUMN state, DROP COLUMN priority, DROP COLUMN scheduled_at,
  DROP COLUMN concurrency_key, DROP COLUMN claim_token, DROP COLUMN claimed_by, DROP COLUMN lease_expires_at,
  DROP COLUMN started_at, DROP COLUMN started_event_id, DROP COLUMN ended_at, DROP COLUMN error_kind,
  DROP COLUMN wait_deadline_at;
CREATE INDEX cyclone_steps_hot_claim_idx ON cyclone_steps_hot (kind, priority DESC NULLS LAST, scheduled_at) WHERE state = 'available';
CREATE INDEX cyclone_steps_hot_discarded_idx ON cyclone_steps_hot (error_kind, ended_at) WHERE state = 'discarded';
CREATE INDEX cyclone_steps_hot_parent_state_idx ON cyclone_steps_hot (parent_step_id, state, item_index) WHERE parent_step_id IS NOT NULL;
CREATE INDEX cyclone_steps_hot_running_idx ON cyclone_steps_hot (kind, concurrency_key) WHERE state = 'running';
CREATE INDEX cyclone_steps_hot_timer_idx ON cyclone_steps_hot (scheduled_at) WHERE state = 'waiting_timer';
CREATE INDEX cyclone_steps_hot_wait_deadline_idx ON cyclone_steps_hot (wait_deadline_at) WHERE state IN ('waiting_signal','waiting_child') AND wait_deadline_at IS NOT NULL;
