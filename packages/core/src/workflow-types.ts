/**
 * What TypeScript knows of a built workflow: its input, and for each node its type, handler kind,
 * declared dependencies and output. The builder gathers this in its type parameters and a built
 * definition carries it in a property that exists only in types ({@link WorkflowTypes}), so the
 * definition itself stays the same plain data. The worker's typed handlers and the client's typed
 * submit and result read it through the helpers here.
 *
 * @packageDocumentation
 */
import { type WorkflowDefinition, type WorkflowNodeType } from './definition-types.js';

/** What TypeScript knows of one node. */
export interface NodeTypeInfo {
  readonly type: WorkflowNodeType;
  /** The handler kind of a task or fan-out node; `never` for other nodes. */
  readonly kind: string;
  /** The names in the node's `dependsOn` (and a fan-out's `from`). */
  readonly deps: string;
  /** What the node completes with (a fan-out: its items' outputs in order). */
  readonly output: unknown;
  /** A fan-out's source node; `never` for other nodes. */
  readonly from: string;
  /** A fan-out item task's output; `never` for other nodes. */
  readonly itemOutput: unknown;
}

/** The nodes of a typed workflow by name. */
export type NodeTypeMap = { readonly [node: string]: NodeTypeInfo };

/** The output of a `waitSignal` node. */
export interface SignalWaitOutput {
  /** The signal's payload; null when the wait lapsed. */
  readonly payload: unknown;
  readonly timedOut: boolean;
}

/** The output of a `waitAny` node. */
export interface AnySignalWaitOutput {
  /** The name of the signal that arrived; null when the wait lapsed. */
  readonly signal: string | null;
  readonly payload: unknown;
  readonly timedOut: boolean;
}

/** The output of a `waitN` node. */
export interface QuorumWaitOutput {
  /** The payloads gathered, in arrival order. */
  readonly payloads: readonly unknown[];
  readonly timedOut: boolean;
}

/** The output of a `waitTimer` node. */
export interface TimerWaitOutput {
  /** When the timer fired (ISO 8601 text, as stored in JSON). */
  readonly firedAt: string;
}

/**
 * The types a built definition carries: `input` is what handlers see (a schema's output),
 * `submitInput` what `submit` accepts (a schema's input), `nodes` each node's types.
 */
export interface WorkflowTypes<
  Input = unknown,
  Nodes extends NodeTypeMap = NodeTypeMap,
  SubmitInput = Input,
> {
  readonly input: Input;
  readonly submitInput: SubmitInput;
  readonly nodes: Nodes;
}

/**
 * The key of the property that carries a definition's {@link WorkflowTypes}. The property never
 * exists at run time: it is declared optional, and nothing ever sets it.
 */
export const workflowTypes: unique symbol = Symbol('cyclone.workflowTypes');

/** Anything that carries workflow types: a built definition. */
export interface Typed<T extends WorkflowTypes = WorkflowTypes> {
  readonly [workflowTypes]?: T;
}

/** A built definition with its types: what `build()` returns. */
export type TypedDefinition<
  Input = unknown,
  Nodes extends NodeTypeMap = NodeTypeMap,
  SubmitInput = Input,
> = WorkflowDefinition & Typed<WorkflowTypes<Input, Nodes, SubmitInput>>;

/** The types of a definition (the untyped defaults for a definition that declares none). */
export type TypesOf<D> = D extends { readonly [workflowTypes]?: infer T }
  ? T extends WorkflowTypes
    ? T
    : WorkflowTypes
  : WorkflowTypes;

/** What handlers of a definition's nodes see as `ctx.input`. */
export type InputOf<D> = TypesOf<D>['input'];

/** What `client.submit(definition, input)` accepts as `input`. */
export type SubmitInputOf<D> = TypesOf<D>['submitInput'];

/** The nodes of a definition with their types. */
export type NodesOf<D> = TypesOf<D>['nodes'];

/** A node's output. */
export type OutputOf<D, N extends keyof NodesOf<D>> = NodesOf<D>[N]['output'];

/** The names of the nodes whose work a handler does: tasks and fan-outs. */
export type HandlerNodesOf<D> = {
  [N in keyof NodesOf<D>]: NodesOf<D>[N]['type'] extends 'task' | 'fan_out' ? N : never;
}[keyof NodesOf<D>] &
  string;

/** The outputs of a node's declared dependencies, by node name: what its handler's `ctx.deps` holds. */
export type DepsOf<D, N extends keyof NodesOf<D>> = {
  readonly [P in NodesOf<D>[N]['deps'] & keyof NodesOf<D>]: NodesOf<D>[P]['output'];
};

/** The element type of a list type; unknown for a type that is not a list. */
export type ElementOf<L> = L extends readonly (infer E)[] ? E : unknown;

/** A fan-out node's item: an element of its source node's output. */
export type ItemOf<D, N extends keyof NodesOf<D>> = ElementOf<
  NodesOf<D>[NodesOf<D>[N]['from'] & keyof NodesOf<D>]['output']
>;

/** What a node's handler must return: a task's output, or a fan-out item task's output. */
export type HandlerOutputOf<D, N extends keyof NodesOf<D>> = NodesOf<D>[N]['type'] extends 'fan_out'
  ? NodesOf<D>[N]['itemOutput']
  : NodesOf<D>[N]['output'];

/** The names of the nodes no other node depends on: the leaves, whose outputs make the result. */
export type LeafNodesOf<D> = Exclude<keyof NodesOf<D>, NodesOf<D>[keyof NodesOf<D>]['deps']> &
  string;

/**
 * What `client.result(runId)` gives for a run of the definition: the outputs of its leaf nodes by
 * node name. A definition that declares no type gives `Record<string, unknown>`, as before types.
 */
export type ResultOf<D> = string extends keyof NodesOf<D>
  ? Record<string, unknown>
  : DeclaresTypes<D> extends true
    ? { readonly [L in LeafNodesOf<D>]: NodesOf<D>[L]['output'] }
    : Record<string, unknown>;

/** Whether a definition declares any type: an input, or an output of a task, fan-out or child node. */
export type DeclaresTypes<D> =
  unknown extends InputOf<D>
    ? [
        {
          [N in keyof NodesOf<D>]: NodesOf<D>[N]['type'] extends 'task' | 'child'
            ? unknown extends NodesOf<D>[N]['output']
              ? never
              : N
            : NodesOf<D>[N]['type'] extends 'fan_out'
              ? unknown extends NodesOf<D>[N]['itemOutput']
                ? never
                : N
              : never;
        }[keyof NodesOf<D>],
      ] extends [never]
      ? false
      : true
    : true;
