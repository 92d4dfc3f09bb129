import {
  RUN_STATES,
  STEP_STATES,
  isTerminalRun,
  isTerminalStep,
  type RunState,
  type StepState,
} from '@cyclone/core';

/** The terminal run states, from core: what retention may delete. */
export const TerminalRunStates: readonly RunState[] = Object.freeze(
  RUN_STATES.filter((s) => isTerminalRun(s)),
);

/** The run states that are not terminal: a run in one of them may still need settling. */
export const OpenRunStates: readonly RunState[] = Object.freeze(
  RUN_STATES.filter((s) => !isTerminalRun(s)),
);

/** The terminal step states, from core: what `open_steps` does not count. */
export const TerminalStepStates: readonly StepState[] = Object.freeze(
  STEP_STATES.filter((s) => isTerminalStep(s)),
);
