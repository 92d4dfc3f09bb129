import { NodeType, StepState, StepTrigger, stepChange } from '@cyclone/core';

// Every write of a fan-out node or an item task is one of these changes; the table refuses an
// illegal one at import.

/** A waiting item task gets a free place: `pending -> available` by `fan_out_slot_freed`. */
export const releaseItem = stepChange(
  StepTrigger.FanOutSlotFreed,
  StepState.Available,
  NodeType.Item,
);
/** The node's last item task completed, or its list is empty: `pending -> completed`. */
export const completeFanOut = stepChange(
  StepTrigger.FanOutCompleted,
  StepState.Completed,
  NodeType.FanOut,
);
/** An item was discarded, or a fan-out limit or the input check failed: `pending -> discarded`. */
export const failFanOut = stepChange(
  StepTrigger.FanOutFailed,
  StepState.Exhausted,
  NodeType.FanOut,
);
/** The other item tasks of a discarded node stop: `pending|available|running|paused -> cancelled`. */
export const cancelItem = stepChange(
  StepTrigger.FanOutItemCancelled,
  StepState.Cancelled,
  NodeType.Item,
);
/** An operator retry reopens a discarded fan-out node: `discarded -> pending`. */
export const retryFanOut = stepChange(
  StepTrigger.OperatorRetry,
  StepState.Pending,
  NodeType.FanOut,
);
/** ... and its discarded item tasks within the limit: `discarded -> available`. */
export const retryItem = stepChange(StepTrigger.OperatorRetry, StepState.Available, NodeType.Item);
/** ... and those beyond it (a decision row): `discarded -> pending`. */
export const retryItemLater = stepChange(
  StepTrigger.OperatorRetry,
  StepState.Pending,
  NodeType.Item,
);
/** ... and the item tasks cancelled with the node: `cancelled -> pending`. */
export const reopenItem = stepChange(
  StepTrigger.OperatorRetryReopen,
  StepState.Pending,
  NodeType.Item,
);

/** Item task states that hold a place of the `maxParallel` limit (a paused one keeps its place). */
export const InProgressItemStates: readonly string[] = [
  StepState.Available,
  StepState.Running,
  StepState.Paused,
];

/** Item task states other than `completed`: while one is left, the node is not done. */
export const UnfinishedItemStates: readonly string[] = [
  StepState.Pending,
  StepState.Available,
  StepState.Running,
  StepState.Paused,
  StepState.Exhausted,
  StepState.Cancelled,
];
