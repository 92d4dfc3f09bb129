import { StepState } from '@cyclone/core';
import type { Tables } from '../../db/tables.js';
import { sqlConstant } from '../events/record-events.js';

/** Most distinct priorities of a kind read for its oldest ready step. */
export const OldestReadyPriorityLimit = 1_000;

/**
 * The SQL of a scalar subquery giving when the oldest ready (available, due) step of the kind
 * `kind` (an SQL expression) became claimable, null when none is. The claim index orders a kind's
 * steps by priority first, so the oldest is the oldest of the first steps of each priority: one
 * index probe a distinct priority (a skip scan), at most {@link OldestReadyPriorityLimit} of them.
 */
export function oldestReadyAt(t: Pick<Tables, 'steps'>, kind: string): string {
  const available = sqlConstant(StepState.Available);
  const first = (where: string) => `SELECT s.priority, s.scheduled_at FROM ${t.steps} s
       WHERE s.state = ${available} AND s.kind = ${kind}${where}
       ORDER BY s.priority DESC NULLS LAST, s.scheduled_at LIMIT 1`;
  return `(WITH RECURSIVE firsts(priority, scheduled_at, n) AS (
     SELECT f.*, 1 FROM (${first('')}) f
     UNION ALL
     SELECT next.priority, next.scheduled_at, firsts.n + 1 FROM firsts CROSS JOIN LATERAL (
       ${first(' AND s.priority < firsts.priority')}
     ) next
     WHERE firsts.n < ${OldestReadyPriorityLimit}
   )
   SELECT min(scheduled_at) FROM firsts WHERE scheduled_at <= now())`;
}
