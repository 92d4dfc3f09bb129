import type { WorkflowDefinition } from '@cyclone/core';
import { UsageError } from '../framework/cli-error.js';
import { importModuleExports } from '../framework/module-exports.js';

/**
 * The workflow definitions of `cyclone serve --workflows MODULE`: the module's `workflows`, an
 * array of built definitions (named, or on a default export), as a handler module of
 * `cyclone worker --handlers` exports them, so the same module serves both. The server checks
 * each entry (`createServer`'s `workflows`).
 */
export async function loadWorkflowModule(specifier: string): Promise<WorkflowDefinition[]> {
  const exports = await importModuleExports('--workflows', specifier);
  const workflows = exports.workflows;
  if (!Array.isArray(workflows)) {
    throw new UsageError(
      `--workflows: ${specifier} exports no \`workflows\` array of built definitions`,
    );
  }
  return workflows as WorkflowDefinition[];
}
