import type { Column, InferSelectModel, Table } from 'drizzle-orm';
import type { ErrorKind, RunState, StepState } from '@cyclone/core';
import type { cycloneEvents, cycloneRuns, cycloneSteps } from './index.js';

/** `pg` returns int8 columns (`bigint`, `bigserial`) as strings; Drizzle's types say number. */
type AsPgValue<C, V> = C extends { _: { columnType: 'PgBigSerial53' | 'PgBigInt53' } }
  ? Exclude<V, number> | (number extends V ? string : never)
  : V;

/**
 * A row of `T` as raw SQL returns it through `pg`: the Drizzle schema's columns under their
 * database (snake_case) names. The one source of the store's row types: the schema declares each
 * column once, and every query's row type is a `Pick` of these.
 */
export type RowOf<T extends Table> = {
  -readonly [
    K in keyof T['_']['columns'] & keyof InferSelectModel<T> as T['_']['columns'][K] extends Column
      ? T['_']['columns'][K]['_']['name']
      : never
  ]: AsPgValue<T['_']['columns'][K], InferSelectModel<T>[K]>;
};

/** Narrows the text columns that hold core's values to their types. */
type WithStates<R, S> = Omit<R, 'state' | 'error_kind'> & {
  state: S;
  error_kind: ErrorKind | null;
};

/** A `cyclone_runs` row. */
export type RunRecord = WithStates<RowOf<typeof cycloneRuns>, RunState>;
/** A `cyclone_steps` row. */
export type StepRecord = WithStates<RowOf<typeof cycloneSteps>, StepState>;
/** A `cyclone_events` row. */
export type EventRecord = Omit<RowOf<typeof cycloneEvents>, 'error_kind' | 'detail'> & {
  error_kind: ErrorKind | null;
  detail: Record<string, unknown> | null;
};
