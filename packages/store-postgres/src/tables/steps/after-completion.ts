import { RunState, RunTrigger, runChange } from '@cyclone/core';
import { changeParams, prefixed, singleFromChangeParams } from '../transitions/change-params.js';
import { OpenRunStates } from '../transitions/terminal-states.js';
import type { CompleteStepsParams } from './complete-steps.js';
import { promoteTask } from './promote-ready.js';

const runCompletes = runChange(RunTrigger.Complete, RunState.Completed);

/** The parameters of the completion statement that say what happens after a step completes. */
export const afterCompletion = {
  ...prefixed('runComplete', changeParams(runCompletes)),
  ...prefixed('promote', singleFromChangeParams(promoteTask)),
  promotingRunState: RunState.Running,
  openRunStates: OpenRunStates,
} satisfies Partial<CompleteStepsParams>;
