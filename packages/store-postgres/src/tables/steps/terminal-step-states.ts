import { STEP_STATES, isTerminalStep, type StepState } from '@cyclone/core';

/** The terminal step states, from core: what `open_steps` does not count. */
export const TerminalStepStates: readonly StepState[] = Object.freeze(
  STEP_STATES.filter((s) => isTerminalStep(s)),
);
