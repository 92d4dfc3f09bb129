import {
  isTypeOnly,
  schemasOf,
  type JobDeclaration,
  type ValidationIssue,
  type WorkflowDefinition,
} from '@cyclone/core';
import { jobOf } from './job-handler.js';
import { dispatchOf, dispatchingHandler, type WorkflowNodeHandlers } from './node-handlers.js';
import type { Handler } from './step-context.js';

/** The worker's `handlers` option: handlers by kind, or several such maps to merge. */
export type HandlersOption = HandlerMap | readonly HandlerMap[];

/** Handlers by kind; `any` so that a handler typed for its own input and output fits. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type HandlerMap = Readonly<Record<string, Handler<any, any>>>;

/** The handlers a worker runs by kind, and the definitions it learnt from typed handlers. */
export interface HandlerTable {
  readonly handlers: Map<string, Handler>;
  readonly definitions: readonly WorkflowDefinition[];
  /** The job declarations handlers were registered against (`jobHandler`), by kind. */
  readonly jobs: ReadonlyMap<string, JobDeclaration>;
}

/**
 * Merges handler maps into one handler a kind. Handlers from `handlersFor` of one kind merge
 * into one that dispatches by workflow and node; at most one plain handler a kind, which takes the
 * kind's other steps (a standalone job, a workflow without typed handlers).
 */
export function buildHandlerTable(
  option: HandlersOption | undefined,
  issues: ValidationIssue[],
): HandlerTable {
  const maps: readonly Readonly<Record<string, unknown>>[] = Array.isArray(option)
    ? option
    : [option ?? {}];
  const plain = new Map<string, Handler>();
  const dispatched = new Map<string, Map<string, WorkflowNodeHandlers>>();
  const definitions = new Map<string, WorkflowDefinition>();
  const jobs = new Map<string, JobDeclaration>();
  maps.forEach((map, position) => {
    const at = Array.isArray(option) ? `handlers[${position}]` : 'handlers';
    for (const [kind, handler] of Object.entries(map ?? {})) {
      if (typeof handler !== 'function') {
        issues.push({
          path: `${at}.${kind}`,
          message: `expected a function, got ${typeof handler}`,
        });
        continue;
      }
      const dispatch = dispatchOf(handler as Handler);
      if (dispatch === undefined) {
        if (plain.has(kind)) {
          issues.push({
            path: `${at}.${kind}`,
            message: `a second plain handler of kind "${kind}"`,
          });
        }
        plain.set(kind, handler as Handler);
        const declaration = jobOf(handler as Handler);
        if (declaration !== undefined) jobs.set(kind, declaration);
        continue;
      }
      const byWorkflow = dispatched.get(kind) ?? new Map<string, WorkflowNodeHandlers>();
      dispatched.set(kind, byWorkflow);
      for (const [workflow, entry] of dispatch.byWorkflow) {
        definitions.set(workflow, entry.definition);
        const byNode = new Map(byWorkflow.get(workflow)?.byNode);
        for (const [node, nodeHandler] of entry.byNode) byNode.set(node, nodeHandler);
        byWorkflow.set(workflow, { definition: entry.definition, byNode });
      }
    }
  });
  const handlers = new Map(plain);
  for (const [kind, byWorkflow] of dispatched) {
    handlers.set(kind, dispatchingHandler(kind, { byWorkflow }, plain.get(kind)));
  }
  return { handlers, definitions: [...definitions.values()], jobs };
}

/**
 * The definitions whose nodes declare output schemas, by workflow name: a registered workflow
 * wins over one learnt from its handlers. Empty when none declares one, so that a worker without
 * schemas looks nothing up.
 */
export function outputCheckedWorkflows(
  registered: readonly WorkflowDefinition[],
  learnt: readonly WorkflowDefinition[],
): ReadonlyMap<string, WorkflowDefinition> {
  const byName = new Map<string, WorkflowDefinition>();
  for (const def of [...learnt, ...registered]) {
    if ((schemasOf(def)?.outputs.size ?? 0) > 0) byName.set(def.name, def);
    else byName.delete(def.name);
  }
  return byName;
}

/**
 * The job declarations whose output schema checks something at run time, by kind: empty when
 * none does, so that a worker without them looks nothing up.
 */
export function outputCheckedJobs(
  jobs: ReadonlyMap<string, JobDeclaration>,
): ReadonlyMap<string, JobDeclaration> {
  return new Map(
    [...jobs].filter(([, declaration]) => declaration.output && !isTypeOnly(declaration.output)),
  );
}
