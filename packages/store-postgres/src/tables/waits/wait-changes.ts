import { NodeType, StepState, StepTrigger, stepChange } from '@cyclone/core';

/** The node types that wait for signals (`waitSignal`, `waitAny`, `waitN`). */
export const SignalWaitTypes: readonly string[] = [
  NodeType.WaitSignal,
  NodeType.WaitAny,
  NodeType.WaitN,
];
/** The node type that waits for a timer. */
export const TimerWaitTypes: readonly string[] = [NodeType.WaitTimer];

// Every write of a wait node is one of these changes; the table refuses an illegal one at import.
/** A signal wait whose dependencies completed: `pending -> waiting_signal` by `promote`. */
export const promoteSignalWait = stepChange(
  StepTrigger.Promote,
  StepState.WaitingSignal,
  NodeType.WaitSignal,
);
/** A timer whose dependencies completed: `pending -> waiting_timer` by `promote`. */
export const promoteTimerWait = stepChange(
  StepTrigger.Promote,
  StepState.WaitingTimer,
  NodeType.WaitTimer,
);
/** A signal wait that got its signal (its quorum): `waiting_signal -> completed`. */
export const consumeSignal = stepChange(
  StepTrigger.SignalConsumed,
  StepState.Completed,
  NodeType.WaitSignal,
);
/** A signal wait whose `maxWait` lapsed: `waiting_signal -> completed` with `timedOut`. */
export const lapseWait = stepChange(StepTrigger.WaitLapsed, StepState.Completed, NodeType.WaitN);
/** A timer whose time came: `waiting_timer -> completed`. */
export const fireTimer = stepChange(
  StepTrigger.TimerFired,
  StepState.Completed,
  NodeType.WaitTimer,
);
