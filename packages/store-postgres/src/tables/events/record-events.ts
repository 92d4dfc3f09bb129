import type { Tables } from '../../db/tables.js';

/**
 * One kind of event a statement records: a row per row of `source` (a CTE of the statement,
 * optionally filtered by `where`), each column given as an SQL expression over that source or a
 * bound parameter. The defaults read a step's columns under their usual names (`run_id`, `id`,
 * `node`); a run event sets `stepId` and `node` to `NULL`.
 */
export interface EventValues {
  readonly source: string;
  readonly where?: string;
  /** @defaultValue the next value of the events' sequence */
  readonly id?: string;
  /** @defaultValue `clock_timestamp()`: the moment of the insert */
  readonly at?: string;
  /** @defaultValue `run_id` */
  readonly runId?: string;
  /** @defaultValue `id` */
  readonly stepId?: string;
  /** @defaultValue `node` */
  readonly node?: string;
  /** The event's type: {@link sqlConstant} of one of core's `EventType`s, or a bound parameter. */
  readonly type: string;
  /** The state moved from; `NULL` for an inserted row. */
  readonly from: string;
  readonly to: string;
  readonly trigger: string;
  /** @defaultValue `NULL` */
  readonly errorKind?: string;
  /** Small facts for operators as `jsonb` (never payloads). @defaultValue `NULL` */
  readonly detail?: string;
}

/**
 * The `INSERT` of a statement's events into `cyclone_events`: the one place the table's columns
 * are written, so every statement records the same shape and a change to the events table has
 * one home. Embedded as a CTE (`events AS (...)`) of the statement that makes the moves, so the
 * events commit with them.
 */
export function recordEvents(t: Tables, ...kinds: readonly EventValues[]): string {
  const selects = kinds.map(
    (e) => `SELECT ${e.id ?? `nextval(${t.eventIds})`}, ${e.runId ?? 'run_id'}, ${e.stepId ?? 'id'},
         ${e.node ?? 'node'}, ${e.type}, ${e.from}, ${e.to}, ${e.trigger}, ${e.errorKind ?? 'NULL'},
         ${e.detail ?? 'NULL'}::jsonb, ${e.at ?? 'clock_timestamp()'}
  FROM ${e.source}${e.where === undefined ? '' : ` WHERE ${e.where}`}`,
  );
  return `INSERT INTO ${t.events} (id, run_id, step_id, node, type, from_state, to_state, trigger,
                           error_kind, detail, at)
  ${selects.join('\n  UNION ALL\n  ')}`;
}

/**
 * A constant of core (an event type, a state, a trigger) as an SQL literal. These are snake_case
 * words of the library, never input, so they are written into the statement's text like its
 * table names.
 *
 * @throws TypeError for anything that is not a snake_case word
 */
export function sqlConstant(value: string): string {
  if (!/^[a-z_]+$/.test(value)) throw new TypeError(`not a constant: ${JSON.stringify(value)}`);
  return `'${value}'::text`;
}
