import { EventType } from '@cyclone/core';
import type { Executor } from '../db/executor.js';
import type { EventRecord } from '../schema/rows.js';
import { defineStatement } from '../db/statement.js';
import { eventTypeSql } from '../tables/events/record-events.js';
import {
  CompletedEventId,
  runCompleted,
  runSubmitted,
  SubmittedEventId,
} from '../tables/events/run-row-events.js';

/** Which events to list. */
export interface ListEventsParams {
  runId: string;
  afterId: number | null;
  limit: number;
}

interface ListEventsStatementParams extends ListEventsParams {
  submittedId: number;
  submittedTo: string;
  submitTrigger: string;
  completedId: number;
  completedTo: string;
  completeTrigger: string;
}

/**
 * A run's stored events with the two its row tells (see run-row-events.ts): `run_submitted` at
 * the run's `created_at`, and once the run is completed, `run_completed` from the state the last
 * stored run event left it in (running, or paused when a step in progress at a pause finished
 * it), at its `ended_at` or the last stored event's time if that is later (the row's times are
 * its transaction's start, an event's the moment of its insert), so times read forward too.
 */
const statement = defineStatement<ListEventsStatementParams, EventRecord>(
  'list-events',
  (t, p) => `
WITH run AS (
  SELECT id, state, created_at, ended_at FROM ${t.runs} WHERE id = ${p.runId}
), stored AS (
  SELECT id, run_id, step_id, node, type, from_state, to_state, trigger, error_kind, detail, at
  FROM ${t.events}
  WHERE run_id = ${p.runId} AND id > coalesce(${p.afterId}::bigint, -1)
  ORDER BY id
  LIMIT ${p.limit}
), derived AS (
  SELECT ${p.submittedId}::bigint AS id, run.id AS run_id, NULL::uuid AS step_id, NULL::text AS node,
         ${eventTypeSql(EventType.RunSubmitted)} AS type, NULL::text AS from_state, ${p.submittedTo}::text AS to_state,
         ${p.submitTrigger}::text AS trigger, NULL::text AS error_kind, NULL::jsonb AS detail,
         run.created_at AS at
  FROM run WHERE coalesce(${p.afterId}::bigint, -1) < ${p.submittedId}::bigint
  UNION ALL
  SELECT ${p.completedId}::bigint, run.id, NULL, NULL, ${eventTypeSql(EventType.RunCompleted)},
         coalesce((SELECT e.to_state FROM ${t.events} e
                   WHERE e.run_id = run.id AND e.step_id IS NULL
                   ORDER BY e.id DESC LIMIT 1), ${p.submittedTo}::text),
         ${p.completedTo}::text, ${p.completeTrigger}::text, NULL, NULL,
         greatest(run.ended_at, (SELECT max(e.at) FROM ${t.events} e WHERE e.run_id = run.id))
  FROM run
  WHERE run.state = ${p.completedTo}::text AND coalesce(${p.afterId}::bigint, -1) < ${p.completedId}::bigint
)
SELECT * FROM (SELECT * FROM derived UNION ALL SELECT * FROM stored) e
ORDER BY id
LIMIT ${p.limit}
`,
);

/** A run's events in the order they happened, after an optional event id. */
export function listEvents(db: Executor, p: ListEventsParams): Promise<EventRecord[]> {
  return db.rows(statement, {
    ...p,
    submittedId: SubmittedEventId,
    submittedTo: runSubmitted.to,
    submitTrigger: runSubmitted.trigger,
    completedId: CompletedEventId,
    completedTo: runCompleted.to,
    completeTrigger: runCompleted.trigger,
  });
}
