import { StepState } from '@cyclone/core';
import type { Tables } from '../../db/tables.js';
import { sqlConstant } from '../events/record-events.js';

/**
 * The SQL of a scalar subquery counting the concurrency keys with claimable steps of the kind
 * `kind` (an SQL expression), steps without a key not counted. It reads the kind's claimable steps
 * in the claim index's order, at most `countLimit` (an SQL expression) of them, so a kind with more
 * keys than that reads as at most that many (decision 376).
 */
export function claimableKeysCount(t: Pick<Tables, 'stepsHot'>, kind: string, countLimit: string) {
  const available = sqlConstant(StepState.Available);
  return `(SELECT count(DISTINCT a.concurrency_key)::int
        FROM (SELECT s.concurrency_key FROM ${t.stepsHot} s
              WHERE s.state = ${available} AND s.kind = ${kind} AND s.scheduled_at <= now()
              ORDER BY s.priority DESC NULLS LAST, s.scheduled_at
              LIMIT ${countLimit}) a)`;
}
