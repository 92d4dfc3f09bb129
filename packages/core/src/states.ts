/**
 * The states a run and a step can occupy. Each constant's value is exactly what the database stores
 * and what the CLI prints. One name differs from its value: {@link StepState.Exhausted} is stored as
 * `"discarded"`.
 *
 * @packageDocumentation
 */

/**
 * States of a run. There is no pending run state: submit and enqueue insert a run and all of its
 * steps in one transaction, so a run starts `running`.
 */
export const RunState = {
  /** Created and not yet terminal. */
  Running: 'running',
  /** Every step completed, or a `CancelBranch` policy contained every discard. Terminal. */
  Completed: 'completed',
  /** A step was discarded and no `CancelBranch` policy contained it, or the run deadline elapsed. Terminal. */
  Failed: 'failed',
  /** An operator cancelled the run. Terminal. */
  Cancelled: 'cancelled',
  /** An operator paused the run: it starts no new work until resumed. Not terminal. */
  Paused: 'paused',
} as const;
export type RunState = (typeof RunState)[keyof typeof RunState];

/** States of a step (a task node, an item task, a wait node, a fan-out node or a child node). */
export const StepState = {
  /** Waits for upstream dependencies; a fan-out node stays pending while its item tasks run. */
  Pending: 'pending',
  /** Dependencies are met; a worker may claim it once `scheduled_at` has passed. */
  Available: 'available',
  /** A worker holds the lease and the handler is executing. */
  Running: 'running',
  /** A signal wait: waits for a named signal or for its max wait to lapse. */
  WaitingSignal: 'waiting_signal',
  /** A timer wait: waits until `scheduled_at`. */
  WaitingTimer: 'waiting_timer',
  /** A child node: waits for its child run to end. */
  WaitingChild: 'waiting_child',
  /** The run is paused; no worker claims it and no scanner moves it. */
  Paused: 'paused',
  /** The handler returned; the output is stored. Terminal. */
  Completed: 'completed',
  /** Attempts exhausted, a permanent error, the run deadline or the reclaim limit. Terminal. Stored as `"discarded"`. */
  Exhausted: 'discarded',
  /** Cancelled by the operator, by fail-fast, or by branch cancellation. Terminal. */
  Cancelled: 'cancelled',
} as const;
export type StepState = (typeof StepState)[keyof typeof StepState];

/** Every run state, in declaration order. */
export const RUN_STATES: readonly RunState[] = Object.values(RunState);
/** Every step state, in declaration order. */
export const STEP_STATES: readonly StepState[] = Object.values(StepState);

const TERMINAL_RUN_STATES: ReadonlySet<RunState> = new Set([
  RunState.Completed,
  RunState.Failed,
  RunState.Cancelled,
]);
const TERMINAL_STEP_STATES: ReadonlySet<StepState> = new Set([
  StepState.Completed,
  StepState.Exhausted,
  StepState.Cancelled,
]);

/** Whether a run state is terminal (`completed`, `failed`, `cancelled`). `paused` is not terminal. */
export function isTerminalRun(state: RunState): boolean {
  return TERMINAL_RUN_STATES.has(state);
}

/** Whether a step state is terminal (`completed`, `discarded`, `cancelled`). */
export function isTerminalStep(state: StepState): boolean {
  return TERMINAL_STEP_STATES.has(state);
}

/** Whether a string is one of the run states. */
export function isRunState(value: unknown): value is RunState {
  return typeof value === 'string' && (RUN_STATES as readonly string[]).includes(value);
}

/** Whether a string is one of the step states. */
export function isStepState(value: unknown): value is StepState {
  return typeof value === 'string' && (STEP_STATES as readonly string[]).includes(value);
}
