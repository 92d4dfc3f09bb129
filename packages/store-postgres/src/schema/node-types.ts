/**
 * The kinds of step row. `item` is an item task of a fan-out node; the others are the node types of
 * a workflow definition. A standalone job is a run of one `task` step.
 */
export const STEP_NODE_TYPES = [
  'task',
  'item',
  'fan_out',
  'child',
  'wait_signal',
  'wait_any',
  'wait_n',
  'wait_timer',
] as const;
export type StepNodeType = (typeof STEP_NODE_TYPES)[number];
