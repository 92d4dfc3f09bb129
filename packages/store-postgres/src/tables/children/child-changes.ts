import { NodeType, StepState, StepTrigger, stepChange } from '@cyclone/core';

/** The node type that starts a child run. */
export const ChildNodeTypes: readonly string[] = [NodeType.Child];

// Every write of a child node is one of these changes; the table refuses an illegal one at import.
/** A child node whose dependencies completed: `pending -> waiting_child` by `promote`. */
export const promoteChild = stepChange(StepTrigger.Promote, StepState.WaitingChild, NodeType.Child);
/** Its child run completed with a result for it: `waiting_child -> completed`. */
export const completeChild = stepChange(
  StepTrigger.ChildCompleted,
  StepState.Completed,
  NodeType.Child,
);
/**
 * Its child run failed, was cancelled or gave no result, or the child workflow is unknown or did
 * not build: `waiting_child -> discarded`, error kind `permanent`.
 */
export const failChild = stepChange(StepTrigger.ChildFailed, StepState.Exhausted, NodeType.Child);
/** Its `maxWait` lapsed: `waiting_child -> discarded`, error kind `permanent`. */
export const lapseChild = stepChange(StepTrigger.WaitLapsed, StepState.Exhausted, NodeType.Child);
/** An operator retried it: `discarded -> pending`; the node reuses its child run. */
export const retryChild = stepChange(StepTrigger.OperatorRetry, StepState.Pending, NodeType.Child);
