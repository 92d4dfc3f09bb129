/**
 * LISTEN/NOTIFY channels. Notifications only wake listeners early; every listener also polls, so
 * a missed notification delays work by at most one poll interval and loses nothing.
 */
export const Channels = {
  /** Payload: a handler kind that has newly available steps. */
  stepsAvailable: 'cyclone_steps_available',
  /** Payload: comma-separated ids of runs that reached a terminal state. */
  runsEnded: 'cyclone_runs_ended',
  /**
   * Payload: comma-separated ids of running steps that an operator or a scanner ended (cancel,
   * run deadline), so the worker holding them aborts their handlers at once.
   */
  stepsCancelled: 'cyclone_steps_cancelled',
} as const;
