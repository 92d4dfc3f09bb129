import { StepState } from '@cyclone/core';
import type { Tables } from '../../db/tables.js';
import { sqlConstant } from '../events/record-events.js';

/** Most distinct priorities of a kind read for its oldest ready step. */
export const OldestReadyPriorityLimit = 1_000;

/**
 * The SQL of a query giving the first step of each priority of the kind `kind` (an SQL
 * expression), `firsts(priority, scheduled_at, concurrency_key, n)`, ready or not. The claim index
 * orders a kind's steps by priority first, so the oldest ready step is the oldest of these: one
 * index probe a distinct priority (a skip scan), at most {@link OldestReadyPriorityLimit} of them.
 */
function firstOfEachPriority(t: Pick<Tables, 'stepsHot'>, kind: string): string {
  const available = sqlConstant(StepState.Available);
  const first = (where: string) => `SELECT s.priority, s.scheduled_at, s.concurrency_key
       FROM ${t.stepsHot} s
       WHERE s.state = ${available} AND s.kind = ${kind}${where}
       ORDER BY s.priority DESC NULLS LAST, s.scheduled_at LIMIT 1`;
  return `WITH RECURSIVE firsts(priority, scheduled_at, concurrency_key, n) AS (
     SELECT f.*, 1 FROM (${first('')}) f
     UNION ALL
     SELECT next.priority, next.scheduled_at, next.concurrency_key, firsts.n + 1
     FROM firsts CROSS JOIN LATERAL (
       ${first(' AND s.priority < firsts.priority')}
     ) next
     WHERE firsts.n < ${OldestReadyPriorityLimit}
   )`;
}

/**
 * The SQL of a scalar subquery giving when the oldest ready (available, due) step of the kind
 * `kind` (an SQL expression) became claimable, null when none is (see {@link firstOfEachPriority}).
 */
export function oldestReadyAt(t: Pick<Tables, 'stepsHot'>, kind: string): string {
  return `(${firstOfEachPriority(t, kind)}
   SELECT min(scheduled_at) FROM firsts WHERE scheduled_at <= now())`;
}

/**
 * The SQL of a subquery giving the oldest ready step of the kind `kind` as one row
 * `(concurrency_key, scheduled_at)`, none when no step is ready: the same walk as
 * {@link oldestReadyAt}, which also tells whose step it is.
 */
export function oldestReadyStep(t: Pick<Tables, 'stepsHot'>, kind: string): string {
  return `(${firstOfEachPriority(t, kind)}
   SELECT concurrency_key, scheduled_at FROM firsts WHERE scheduled_at <= now()
   ORDER BY scheduled_at LIMIT 1)`;
}
