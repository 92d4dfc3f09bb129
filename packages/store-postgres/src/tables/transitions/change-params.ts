import type { RunChange, StepChange } from '@cyclone/core';

/**
 * The one state a change moves from, for the `from_state` of its events when the statement does
 * not read the row's previous state. Called at module load, so a change whose table rows gain a
 * second from-state fails at import instead of recording a wrong event.
 *
 * @throws TypeError when the change has several from-states
 */
export function singleFrom<C extends StepChange | RunChange>(change: C): C['from'][number] {
  const [from, ...more] = change.from;
  if (from === undefined || more.length > 0) {
    throw new TypeError(
      `${change.entity} change ${change.trigger} -> ${change.to} moves from ${change.from.join(', ')}: read the row's previous state instead`,
    );
  }
  return from;
}

/**
 * What a statement binds from one of core's changes: the state it writes, the states it may
 * write over (its `WHERE state = ANY(...)` fence) and the trigger its events record. Every state
 * write takes these from a change, so the database never holds a move the table does not have.
 */
export interface ChangeParams {
  toState: string;
  fromStates: readonly string[];
  trigger: string;
}

/** {@link ChangeParams} of a change with one from-state, which its events record as `from_state`. */
export interface SingleFromChangeParams extends ChangeParams {
  eventFrom: string;
}

/** The parameters a statement binds from `change`. */
export function changeParams(change: StepChange | RunChange): ChangeParams {
  return { toState: change.to, fromStates: change.from, trigger: change.trigger };
}

/**
 * The parameters a statement binds from a change with one from-state (see {@link singleFrom}),
 * that state included for its events.
 */
export function singleFromChangeParams(change: StepChange | RunChange): SingleFromChangeParams {
  return { ...changeParams(change), eventFrom: singleFrom(change) };
}

/** `T` with every key prefixed (`toState` under `paused` is `pausedToState`). */
export type Prefixed<P extends string, T> = {
  [K in keyof T & string as `${P}${Capitalize<K>}`]: T[K];
};

/**
 * The parameters of a change under a prefix (`prefixed('paused', ...)` gives `pausedToState`,
 * `pausedFromStates`, ...), for statements that apply or choose between several changes.
 */
export function prefixed<P extends string, T extends object>(prefix: P, params: T): Prefixed<P, T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    out[`${prefix}${key[0]!.toUpperCase()}${key.slice(1)}`] = value;
  }
  return out as Prefixed<P, T>;
}
