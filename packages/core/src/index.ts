/**
 * `@cyclone/core`: the pure heart of Cyclone. States, error kinds, the transition table and the rules
 * over it, workflow definitions, durations, backoff and error classes. No I/O.
 *
 * @example
 * ```ts
 * import { RunState, isTerminalRun } from '@cyclone/core';
 * if (isTerminalRun(run.state)) console.log('done:', run.state === RunState.Completed);
 * ```
 *
 * @packageDocumentation
 */
export * from './states.js';
export * from './error-kind.js';
export * from './errors.js';
export * from './duration.js';
export * from './outcomes.js';
export * from './limits.js';
export * from './status.js';
export * from './triggers.js';
export * from './event-types.js';
export {
  isDotPath,
  keyAtPath,
  valueAtPath,
  MaxDotPathLength,
  MaxConcurrencyKeyLength,
} from './flow-control.js';
export * from './transitions.js';
export * from './propose.js';
export * from './node-move.js';
export * from './run-outcome.js';
export * from './random.js';
export * from './backoff.js';
export * from './stable-hash.js';
export * from './result-cache.js';
export * from './json-payload.js';
export * from './cron-schedule.js';
export * from './schedule-policy.js';
export * from './text-value.js';
export * from './error-text.js';
export * from './redact-url.js';
export * from './definition-graph.js';
// Named, so that the zod helpers definition.ts shares with the builder stay internal.
export {
  WorkflowNodeType,
  WORKFLOW_NODE_TYPES,
  DefinitionFormat,
  NamePattern,
  MaxTimeoutMs,
  type TaskNodeDefinition,
  type CacheDefinition,
  type FanOutNodeDefinition,
  type ChildNodeDefinition,
  type WaitSignalNodeDefinition,
  type WaitAnyNodeDefinition,
  type WaitNNodeDefinition,
  type WaitTimerNodeDefinition,
  type NodeDefinition,
  type WorkflowDefaults,
  type WorkflowDefinition,
  backoffPolicySchema,
  nodeDefinitionSchema,
  nodeDefinitionSchemas,
  workflowDefaultsSchema,
  workflowDefinitionSchema,
  definitionIssues,
  definitionHash,
  parseWorkflowDefinition,
  isWorkflowNodeType,
} from './definition.js';
export * from './workflow-builder.js';
export * from './workflow-types.js';
export * from './standard-schema.js';
export * from './job-declaration.js';
export {
  schemasOf,
  checkRunInput,
  nodeOutputIssues,
  type DefinitionSchemas,
} from './definition-schemas.js';
export * from './step-labels.js';
export * from './wait-histogram.js';
export * from './node-explanation.js';
export type * from './node-facts.js';
export { explainNode, stepName } from './explain-node.js';
