import type { WorkflowDefinition } from '@cyclone/core';
import type { Handler } from '@cyclone/worker';
import { UsageError } from '../framework/cli-error.js';
import { asRecord, importModuleExports } from '../framework/module-exports.js';

/** What a handler module of `cyclone worker --handlers` provides. */
export interface HandlerModule {
  readonly handlers: Readonly<Record<string, Handler>>;
  readonly workflows: readonly WorkflowDefinition[];
}

/**
 * Imports the module at `specifier` (a path, relative to the working directory) and checks its
 * shape: `handlers`, an object of kind -> function, and optionally `workflows`, an array of built
 * definitions. Named exports, or the same names on a default export.
 */
export async function loadHandlerModule(specifier: string): Promise<HandlerModule> {
  const exports = await importModuleExports('--handlers', specifier);
  const handlers = asRecord(exports.handlers);
  if (!handlers) {
    throw new UsageError(
      `--handlers: ${specifier} exports no \`handlers\` object (kind -> async function)`,
    );
  }
  const notFunctions = Object.entries(handlers).filter(([, h]) => typeof h !== 'function');
  if (notFunctions.length > 0) {
    throw new UsageError(
      `--handlers: handlers of ${notFunctions.map(([kind]) => `"${kind}"`).join(', ')} in ${specifier} are not functions`,
    );
  }
  if (Object.keys(handlers).length === 0) {
    throw new UsageError(`--handlers: ${specifier} exports an empty \`handlers\` object`);
  }
  const workflows = exports.workflows ?? [];
  if (!Array.isArray(workflows)) {
    throw new UsageError(
      `--handlers: \`workflows\` in ${specifier} must be an array of definitions`,
    );
  }
  return {
    handlers: handlers as Record<string, Handler>,
    workflows: workflows as WorkflowDefinition[],
  };
}
