import { RUN_STATES, isTerminalRun, type RunState } from '@cyclone/core';

/** The terminal run states, from core: what retention may delete. */
export const TerminalRunStates: readonly RunState[] = Object.freeze(
  RUN_STATES.filter((s) => isTerminalRun(s)),
);
