import {
  permanent,
  ValidationError,
  type DepsOf,
  type HandlerNodesOf,
  type HandlerOutputOf,
  type InputOf,
  type ItemOf,
  type NodesOf,
  type ValidationIssue,
  type WorkflowDefinition,
} from '@cyclone/core';
import type { Handler, ItemContext, StepContext, TaskContext } from './step-context.js';

/**
 * The context a node's handler receives: a fan-out's item tasks get {@link ItemContext}, a task
 * {@link TaskContext}, both typed from the definition.
 */
export type NodeContext<D, N extends keyof NodesOf<D>> = NodesOf<D>[N]['type'] extends 'fan_out'
  ? ItemContext<InputOf<D>, ItemOf<D, N>>
  : TaskContext<InputOf<D>, DepsOf<D, N>>;

/** The handler of one node of a typed definition: it must return the node's declared output. */
export type NodeHandler<D, N extends keyof NodesOf<D>> = (
  ctx: NodeContext<D, N>,
) => Promise<HandlerOutputOf<D, N>> | HandlerOutputOf<D, N>;

/** Handlers of a definition's task and fan-out nodes, by node name. */
export type NodeHandlers<D> = {
  readonly [N in HandlerNodesOf<D>]?: NodeHandler<D, N>;
};

/** Handlers by kind, as the worker's `handlers` option takes them. */
export type HandlersByKind = Readonly<Record<string, Handler>>;

/** The handlers of one workflow's nodes, with the definition they were registered against. */
export interface WorkflowNodeHandlers {
  readonly definition: WorkflowDefinition;
  readonly byNode: ReadonlyMap<string, Handler>;
}

/**
 * What a handler made by {@link handlersFor} carries: the handlers it dispatches to, by workflow
 * name (several workflows once the worker merged the handlers of one kind).
 */
export interface NodeDispatch {
  readonly byWorkflow: ReadonlyMap<string, WorkflowNodeHandlers>;
}

/** `Symbol.for`, so that two installed copies of the worker recognise each other's handlers. */
const DISPATCH = Symbol.for('@cyclone/worker/node-dispatch');

/** The table of a handler made by {@link handlersFor}; undefined for a plain handler. */
export function dispatchOf(handler: Handler): NodeDispatch | undefined {
  return (handler as unknown as Record<symbol, NodeDispatch | undefined>)[DISPATCH];
}

/**
 * A handler of `kind` that calls the handler of the step's workflow and node, and `fallback` (a
 * plain handler of the kind) for any other step of the kind, such as a standalone job.
 */
export function dispatchingHandler(
  kind: string,
  dispatch: NodeDispatch,
  fallback: Handler | undefined,
): Handler {
  const handler: Handler = (ctx: StepContext) => {
    const byNode = dispatch.byWorkflow.get(ctx.workflow)?.byNode.get(ctx.node);
    if (byNode !== undefined) return byNode(ctx);
    if (fallback !== undefined) return fallback(ctx);
    throw permanent(
      new Error(
        `no handler for node "${ctx.node}" of workflow "${ctx.workflow}" among the handlers of kind "${kind}"`,
      ),
    );
  };
  Object.defineProperty(handler, DISPATCH, { value: dispatch, enumerable: false });
  return handler;
}

/**
 * Handlers registered against a definition, typed from it: each node's handler sees `ctx.input`
 * as the workflow's input, `ctx.deps` with exactly its declared dependencies' outputs (a
 * fan-out's item tasks: `ctx.item`, an element of the source's output), and must return its
 * node's declared output. Returns handlers by kind for the worker's `handlers` option; when
 * several nodes (or, merged by the worker, several workflows) share a kind, each step goes to its
 * node's handler. A key that is not a task or fan-out node of the definition is refused with a
 * `ValidationError`. A handler's return value is checked against its node's output schema when the
 * attempt ends, as for every workflow the worker knows.
 *
 * @example
 * ```ts
 * const worker = new Worker({
 *   connectionString,
 *   workflows: [order],
 *   handlers: handlersFor(order, {
 *     load: async (ctx) => loadOrder(ctx.input.orderId),
 *     charge: async (ctx) => charge(ctx.deps.load.total),
 *   }),
 * });
 * ```
 */
export function handlersFor<const D extends WorkflowDefinition>(
  definition: D,
  handlers: NodeHandlers<D>,
): HandlersByKind {
  const byNode = new Map<string, Handler>();
  const kinds = new Map<string, string>();
  const given = handlers as Readonly<Record<string, unknown>>;
  const issues: ValidationIssue[] = [];
  for (const [name, handler] of Object.entries(given)) {
    const node = definition.nodes.find((n) => n.name === name);
    if (node === undefined || (node.type !== 'task' && node.type !== 'fan_out')) {
      issues.push({
        path: name,
        message: `expected the name of a task or fan-out node of workflow "${definition.name}"`,
      });
    } else if (typeof handler !== 'function') {
      issues.push({ path: name, message: `expected a function, got ${typeof handler}` });
    } else {
      byNode.set(name, handler as Handler);
      kinds.set(name, node.kind);
    }
  }
  if (issues.length > 0) {
    throw new ValidationError(`handlers of workflow ${JSON.stringify(definition.name)}`, issues);
  }
  const dispatch: NodeDispatch = {
    byWorkflow: new Map([[definition.name, { definition, byNode }]]),
  };
  const byKind: Record<string, Handler> = {};
  for (const kind of new Set(kinds.values()))
    byKind[kind] = dispatchingHandler(kind, dispatch, undefined);
  return byKind;
}
