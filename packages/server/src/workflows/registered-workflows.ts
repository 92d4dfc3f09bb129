import { parseWorkflowDefinition, type WorkflowDefinition } from '@cyclone/core';
import { ServerOptionsError } from '../security/errors.js';

/**
 * The workflow definitions a server was given (`workflows`), by name: the built objects, with the
 * input schemas they were declared with, which the stored definitions lack. `POST /api/runs`
 * submits these, so their input schema refuses bad input with a 400, and the API description
 * carries each one's input JSON Schema.
 *
 * @throws ServerOptionsError for an entry that is not a definition that builds, or a name given twice
 */
export function registeredWorkflows(
  workflows: readonly WorkflowDefinition[] | undefined,
): ReadonlyMap<string, WorkflowDefinition> {
  const byName = new Map<string, WorkflowDefinition>();
  (workflows ?? []).forEach((definition, i) => {
    try {
      parseWorkflowDefinition(definition);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ServerOptionsError(`workflows[${i}] is not a workflow definition: ${reason}`);
    }
    if (byName.has(definition.name)) {
      throw new ServerOptionsError(
        `workflows[${i}]: a second definition of workflow ${JSON.stringify(definition.name)}`,
      );
    }
    byName.set(definition.name, definition);
  });
  return byName;
}
