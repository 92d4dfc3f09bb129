import { EventType } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { Channels } from '../../db/channels.js';
import { defineStatement } from '../../db/statement.js';
import { sqlConstant, recordEvents } from '../events/record-events.js';
import type { SingleFromChangeParams } from '../transitions/change-params.js';

/** The discarded steps to retry and the change that retries them. */
export interface RetryStepsParams extends SingleFromChangeParams {
  runId: string;
  stepIds: string[];
  nodeTypes: readonly string[];
  /** `RetryAdditionalAttempts` of core: executions the retried step has at least. */
  additionalAttempts: number;
}

/**
 * Retries discarded steps: `attempts` kept, `max_attempts` raised to at least attempts + the
 * additional attempts, `reclaims` reset, error, error kind and panic stack cleared, claimable now.
 * The old claim is gone with the claim token, so a late result of an earlier attempt is fenced
 * out. Runs under the run's lock.
 */
const statement = defineStatement<RetryStepsParams, { id: string }>(
  'retry-steps',
  (t, p) => `
WITH retried AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.toState}::text),
      max_attempts = greatest(s.max_attempts, s.attempts + (SELECT ${p.additionalAttempts}::int)),
      reclaims = 0, error = NULL, error_kind = NULL, panic_stack = NULL,
      scheduled_at = now(), ended_at = NULL, lease_expires_at = NULL,
      claim_token = NULL, claimed_by = NULL
  -- The listed steps by a join with their ids: one probe of the key each (decision 422).
  FROM unnest((SELECT ${p.stepIds}::uuid[])) AS listed(id)
  WHERE s.id = listed.id AND s.run_id = (SELECT ${p.runId}::uuid)
    AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[]) AND s.node_type = ANY((SELECT ${p.nodeTypes}::text[])::text[])
  RETURNING s.id, s.run_id, s.node, s.kind, s.attempts, s.max_attempts
), events AS (
  ${recordEvents(t, {
    source: 'retried',
    type: sqlConstant(EventType.StepRetried),
    from: `(SELECT ${p.eventFrom}::text)`,
    to: `(SELECT ${p.toState}::text)`,
    trigger: `(SELECT ${p.trigger}::text)`,
    detail: `jsonb_build_object('attempts', attempts, 'maxAttempts', max_attempts)`,
  })}
), notified AS (
  SELECT pg_notify('${Channels.stepsAvailable}', kind)
  FROM (SELECT DISTINCT kind FROM retried WHERE kind IS NOT NULL) k
)
SELECT id, (SELECT count(*) FROM notified) AS notified FROM retried
`,
);

/** Retries discarded steps (see the statement). */
export function retrySteps(db: SqlRunner, p: RetryStepsParams): Promise<{ id: string }[]> {
  return db.rows(statement, p);
}
