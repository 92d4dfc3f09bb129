import { ValidationError, type WorkflowDefinition } from '@cyclone/core';

/** Node types this version of the engine executes. */
const SUPPORTED = new Set<string>([
  'task',
  'fan_out',
  'wait_signal',
  'wait_any',
  'wait_n',
  'wait_timer',
]);

/**
 * Refuses a definition with a node type the engine cannot execute yet (child nodes are accepted by the builder but not run by this version), so such a run fails at submit with a
 * clear error instead of stopping at that node.
 */
export function assertSupportedNodes(definition: WorkflowDefinition): void {
  const issues = definition.nodes
    .filter((node) => !SUPPORTED.has(node.type))
    .map((node) => ({
      path: `nodes.${node.name}`,
      message: `${node.type} nodes are not executed by this version of Cyclone yet; only task, fan_out, wait_signal, wait_any, wait_n and wait_timer nodes are`,
    }));
  if (issues.length > 0) throw new ValidationError(`workflow "${definition.name}"`, issues);
}
