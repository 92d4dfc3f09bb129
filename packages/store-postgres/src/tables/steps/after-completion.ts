import {
  isTerminalRun,
  RUN_STATES,
  RunState,
  RunTrigger,
  runChange,
  StepState,
  StepTrigger,
  stepChange,
} from '@cyclone/core';
import { singleFrom } from '../changes.js';
import type { CompleteStepsParams } from './complete-steps.js';

const promote = stepChange(StepTrigger.Promote, StepState.Available, 'task');
const runCompletes = runChange(RunTrigger.Complete, RunState.Completed);

/** The parameters of the completion statement that say what happens after a step completes. */
export const afterCompletion = {
  runCompleteTo: runCompletes.to,
  runCompleteFrom: runCompletes.from,
  promoteTo: promote.to,
  promoteFrom: promote.from,
  promoteTrigger: promote.trigger,
  promoteEventFrom: singleFrom(promote),
  promotingRunState: RunState.Running,
  openRunStates: RUN_STATES.filter((s) => !isTerminalRun(s)),
} satisfies Partial<CompleteStepsParams>;
