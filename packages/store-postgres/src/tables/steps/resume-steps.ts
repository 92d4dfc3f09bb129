import { EventType } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { Channels } from '../../db/channels.js';
import { defineStatement } from '../../db/statement.js';
import { sqlConstant, recordEvents } from '../events/record-events.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** A resumed run's paused steps, the four resume changes, and the node types each applies to. */
export interface ResumeStepsParams {
  runId: string;
  /** How long the pause lasted: waits and timers move forward by it. */
  pausedMs: number;
  fromStates: readonly string[];
  trigger: string;
  toAvailable: string;
  toSignal: string;
  signalTypes: readonly string[];
  toTimer: string;
  timerTypes: readonly string[];
  toChild: string;
  childTypes: readonly string[];
}

/**
 * Resumes a run's paused steps, each to the state it was paused from: a task or item task to
 * `available` (its `scheduled_at` unchanged, so a backoff still counts), a signal wait to
 * `waiting_signal` and a child node to `waiting_child` with `wait_deadline_at` moved forward by
 * the pause, a timer to `waiting_timer` with `scheduled_at` moved forward by the pause. Runs under
 * the run's lock.
 */
const statement = defineStatement<ResumeStepsParams, { id: string; state: string }>(
  'resume-steps',
  (t, p) => `
WITH resumed AS (
  UPDATE ${t.stepsHot} s
  SET state = CASE WHEN s.node_type = ANY((SELECT ${p.signalTypes}::text[])::text[]) THEN (SELECT ${p.toSignal}::text)
                   WHEN s.node_type = ANY((SELECT ${p.timerTypes}::text[])::text[]) THEN (SELECT ${p.toTimer}::text)
                   WHEN s.node_type = ANY((SELECT ${p.childTypes}::text[])::text[]) THEN (SELECT ${p.toChild}::text)
                   ELSE (SELECT ${p.toAvailable}::text) END,
      scheduled_at = CASE WHEN s.node_type = ANY((SELECT ${p.timerTypes}::text[])::text[])
                          THEN s.scheduled_at + (SELECT ${p.pausedMs}::bigint) * interval '1 millisecond'
                          ELSE s.scheduled_at END,
      wait_deadline_at = s.wait_deadline_at + (SELECT ${p.pausedMs}::bigint) * interval '1 millisecond'
  WHERE ${stepsOfRun('s', `(SELECT ${p.runId}::uuid)`)} AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
  RETURNING s.id, s.run_id, s.node, s.kind, s.state, s.scheduled_at,
            (SELECT x.state FROM ${t.stepsHot} x WHERE x.id = s.id) AS from_state
), events AS (
  ${recordEvents(t, {
    source: 'resumed',
    type: sqlConstant(EventType.StepResumed),
    from: 'from_state',
    to: 'state',
    trigger: `(SELECT ${p.trigger}::text)`,
  })}
), notified AS (
  SELECT pg_notify('${Channels.stepsAvailable}', kind)
  FROM (SELECT DISTINCT kind FROM resumed
        WHERE state = (SELECT ${p.toAvailable}::text) AND kind IS NOT NULL AND scheduled_at <= now()) k
)
SELECT id, state, (SELECT count(*) FROM notified) AS notified FROM resumed
`,
);

/** Resumes a run's paused steps (see the statement). */
export function resumeSteps(
  db: SqlRunner,
  p: ResumeStepsParams,
): Promise<{ id: string; state: string }[]> {
  return db.rows(statement, p);
}
