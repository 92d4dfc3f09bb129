import { EventType } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { Channels } from '../../db/channels.js';
import { defineStatement } from '../../db/statement.js';
import { sqlConstant, recordEvents } from '../events/record-events.js';

/** The fan-out nodes a retry reopens, and the changes that reopen their item tasks. */
export interface ReopenItemsParams {
  nodeIds: string[];
  inProgressStates: readonly string[];
  /** A discarded item within the free places: `discarded -> available` by `operator_retry`. */
  retryTo: string;
  /** One beyond them: `discarded -> pending` by `operator_retry`. */
  retryLaterTo: string;
  retryFrom: string;
  retryTrigger: string;
  /** A cancelled item: `cancelled -> pending` by `operator_retry_reopen`. */
  reopenTo: string;
  reopenFrom: string;
  reopenTrigger: string;
  additionalAttempts: number;
}

/**
 * Reopens the item tasks of fan-out nodes a retry reopens, together with them: discarded items as
 * a retry of a task does (attempts kept, max attempts raised, reclaims reset, errors cleared),
 * into the free places of the limit in item order and pending beyond them; items cancelled with
 * the node (or by fail-fast) back to pending. Settlement then releases pending items as places
 * free up. Completed items keep their outputs. Runs under the run's lock.
 */
const statement = defineStatement<ReopenItemsParams, { id: string; state: string }>(
  'reopen-items',
  (t, p) => `
WITH nodes AS (
  SELECT n.id, n.max_parallel,
         (SELECT count(*) FROM ${t.stepsHot} i
          WHERE i.parent_step_id = n.id AND i.state = ANY((SELECT ${p.inProgressStates}::text[])::text[]))::int AS busy
  FROM unnest((SELECT ${p.nodeIds}::uuid[])) AS listed(id) JOIN ${t.stepsHot} n ON n.id = listed.id
), ranked AS (
  SELECT i.id, n.max_parallel, n.busy,
         row_number() OVER (PARTITION BY i.parent_step_id ORDER BY i.item_index) AS rank
  FROM ${t.stepsHot} i JOIN nodes n ON n.id = i.parent_step_id
  WHERE i.state = (SELECT ${p.retryFrom}::text)
), retried AS (
  UPDATE ${t.stepsHot} s
  SET state = CASE WHEN r.max_parallel IS NULL OR r.busy + r.rank <= r.max_parallel
                   THEN (SELECT ${p.retryTo}::text) ELSE (SELECT ${p.retryLaterTo}::text) END,
      max_attempts = greatest(s.max_attempts, s.attempts + (SELECT ${p.additionalAttempts}::int)),
      reclaims = 0, error = NULL, error_kind = NULL, panic_stack = NULL,
      scheduled_at = now(), ended_at = NULL, lease_expires_at = NULL,
      claim_token = NULL, claimed_by = NULL
  FROM ranked r
  WHERE s.id = r.id AND s.state = (SELECT ${p.retryFrom}::text)
  RETURNING s.id, s.run_id, s.node, s.kind, s.state, s.attempts, s.max_attempts
), reopened AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.reopenTo}::text), ended_at = NULL, lease_expires_at = NULL,
      claim_token = NULL, claimed_by = NULL
  WHERE s.parent_step_id = ANY((SELECT ${p.nodeIds}::uuid[])::uuid[]) AND s.state = (SELECT ${p.reopenFrom}::text)
  RETURNING s.id, s.run_id, s.node, s.state
), events AS (
  ${recordEvents(
    t,
    {
      source: 'retried',
      type: sqlConstant(EventType.StepRetried),
      from: `(SELECT ${p.retryFrom}::text)`,
      to: 'state',
      trigger: `(SELECT ${p.retryTrigger}::text)`,
      detail: `jsonb_build_object('attempts', attempts, 'maxAttempts', max_attempts)`,
    },
    {
      source: 'reopened',
      type: sqlConstant(EventType.StepReopened),
      from: `(SELECT ${p.reopenFrom}::text)`,
      to: 'state',
      trigger: `(SELECT ${p.reopenTrigger}::text)`,
    },
  )}
), notified AS (
  SELECT pg_notify('${Channels.stepsAvailable}', kind)
  FROM (SELECT DISTINCT kind FROM retried
        WHERE state = (SELECT ${p.retryTo}::text) AND kind IS NOT NULL) k
)
SELECT id, state, (SELECT count(*) FROM notified) AS notified FROM retried
UNION ALL SELECT id, state, NULL FROM reopened
`,
);

/** Reopens the item tasks of reopened fan-out nodes (see the statement). */
export function reopenItems(
  db: SqlRunner,
  p: ReopenItemsParams,
): Promise<{ id: string; state: string }[]> {
  return db.rows(statement, p);
}
