/**
 * The check that the engine only ever records moves of core's transition table: every
 * `(from_state, to_state, trigger)` of a run's history (`cyclone_history`: the stored events and those
 * the rows tell) must be a row of `STEP_TRANSITIONS` (step
 * events, also matching the step's node type) or `RUN_TRANSITIONS` (run events), and its type one of
 * core's `EventType`s. `from_state` null is the table's "(inserted)".
 */
import type pg from 'pg';
import {
  EVENT_TYPES,
  RUN_TRANSITIONS,
  STEP_TRANSITIONS,
  type EventType,
  type TransitionRow,
} from '@cyclone/core';

/** An event as the check reads it. */
interface CheckedEvent {
  id: string;
  run_id: string;
  step_id: string | null;
  node: string | null;
  node_type: string | null;
  type: string;
  from_state: string | null;
  to_state: string | null;
  trigger: string | null;
}

function matches(row: TransitionRow<string, string>, event: CheckedEvent): boolean {
  return (
    row.from === event.from_state &&
    row.to === event.to_state &&
    row.trigger === event.trigger &&
    (event.node_type === null ||
      row.nodeTypes === undefined ||
      row.nodeTypes.includes(event.node_type as never))
  );
}

function describe(e: CheckedEvent): string {
  const who =
    e.step_id === null ? `run ${e.run_id}` : `step ${e.step_id} (${e.node}, ${e.node_type ?? '?'})`;
  return `event ${e.id} ${e.type} of ${who}: ${e.from_state ?? '(inserted)'} -> ${e.to_state ?? '?'} by ${e.trigger ?? '(no trigger)'}`;
}

/**
 * Fails (throws, naming every offending event) unless each event after `afterId` is a row of
 * core's table. Resolves with the highest event id it checked, to pass as `afterId` next time.
 *
 * @param schema - the Postgres schema of Cyclone's tables (default `public`)
 */
export async function expectEventsFollowTable(
  pool: Pick<pg.Pool, 'query'>,
  afterId = 0,
  schema = 'public',
): Promise<number> {
  const q = (table: string) => `"${schema.replaceAll('"', '""')}"."${table}"`;
  // The whole history: stored events and those the rows tell (cyclone_history). A run's told
  // `run_submitted` (id 0) is checked the first time, its `run_completed` (the largest id) every
  // time; neither moves the mark this returns.
  const { rows } = await pool.query<CheckedEvent>(
    `SELECT e.id::text AS id, e.run_id, e.step_id, e.node, s.node_type, e.type, e.from_state,
            e.to_state, e.trigger
     FROM ${q('cyclone_history')} e LEFT JOIN ${q('cyclone_steps')} s ON s.id = e.step_id
     WHERE e.id > $1 OR ($1 = 0 AND e.id = 0) ORDER BY e.id`,
    [afterId],
  );
  const offending = rows.filter((event) => {
    if (!EVENT_TYPES.includes(event.type as EventType)) return true;
    const table: readonly TransitionRow<string, string>[] =
      event.step_id === null ? RUN_TRANSITIONS : STEP_TRANSITIONS;
    return !table.some((row) => matches(row, event));
  });
  if (offending.length > 0) {
    throw new Error(
      `${offending.length} event(s) are not rows of core's transition table, or have a type that is not one of core's EventType:\n` +
        offending.map((e) => `  ${describe(e)}`).join('\n'),
    );
  }
  return rows.reduce(
    (max, e) => (Number(e.id) >= Number.MAX_SAFE_INTEGER ? max : Math.max(max, Number(e.id))),
    afterId,
  );
}
