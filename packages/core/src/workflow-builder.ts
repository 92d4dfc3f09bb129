import { snapshot } from './builder-values.js';
import { nodePaths } from './definition-graph.js';
import {
  DefinitionFormat,
  type NodeDefinition,
  type NodeSketch,
  type WorkflowDefinition,
  type WorkflowNodeType,
  definitionRuleIssues,
  kindSchema,
  nodeNameSchema,
  sealDefinition,
  workflowNameSchema,
} from './definition.js';
import { type DefinitionSchemas } from './definition-schemas.js';
import { ValidationError, type ValidationIssue } from './errors.js';
import {
  isStandardSchema,
  type SchemaInput,
  type SchemaOutput,
  type StandardSchemaV1,
} from './standard-schema.js';
import {
  type AnySignalWaitOutput,
  type NodeTypeInfo,
  type NodeTypeMap,
  type NodesOf,
  type OutputOf,
  type QuorumWaitOutput,
  type ResultOf,
  type SignalWaitOutput,
  type SubmitInputOf,
  type TimerWaitOutput,
  type TypedDefinition,
} from './workflow-types.js';
import { joinPath } from './json-payload.js';
import { buildNode, check, resolveDefaults, sketchOf, type NodeSpec } from './build-node.js';
import {
  type ChildOptions,
  type FanOutOptions,
  type TaskNodeOptions,
  type WaitAnyOptions,
  type WaitNOptions,
  type WaitSignalOptions,
  type WaitTimerOptions,
  type WorkflowOptions,
} from './workflow-options.js';

/**
 * The workflow builder: `workflow('order').task(...).fanOut(...).build()`. Each method returns a new
 * builder (a builder is immutable, so a partly built workflow can be shared and extended), and
 * `build()` checks everything at once and returns the plain, deep-frozen {@link WorkflowDefinition}.
 *
 * @packageDocumentation
 */
/**
 * Declares a workflow: chain node methods, then call `build()`. With `options.input` (a Standard
 * Schema such as a zod object, or `typed<T>()`), `submit` checks the input and every handler of
 * the workflow sees it typed.
 *
 * @param name - the workflow's name, as registered on the worker and named by child nodes
 * @example
 * ```ts
 * export const order = workflow('order', { input: z.object({ orderId: z.string() }) })
 *   .task('load', 'orders.load', { output: z.object({ items: z.array(z.string()) }) })
 *   .fanOut('pack', 'orders.pack-item', { from: 'load', maxParallel: 4 })
 *   .build();
 * ```
 */
export function workflow<const S extends StandardSchemaV1>(
  name: string,
  options: WorkflowOptions & { readonly input: S },
): WorkflowBuilder<EmptyNodes, SchemaOutput<S>, SchemaInput<S>>;
export function workflow(name: string, options?: WorkflowOptions): WorkflowBuilder;
export function workflow(name: string, options?: WorkflowOptions): WorkflowBuilder {
  const { value: input, rest } = takeOption(options, 'input');
  return new WorkflowBuilder(name, snapshot(rest), [], { input, outputs: [], children: [] });
}

/** The nodes of a workflow that declares none yet. */
export type EmptyNodes = { readonly [N in never]: NodeTypeInfo };

/** A node map with one more node. */
export type AddNode<Nodes extends NodeTypeMap, N extends string, Info extends NodeTypeInfo> = {
  readonly [K in keyof Nodes | N]: K extends N ? Info : Nodes[K];
};

/** The names in a node's `dependsOn`. */
export type DepsIn<O> = O extends { readonly dependsOn: readonly (infer D)[] } ? D & string : never;

/** A node's declared output type; unknown when it declares none. */
export type OutputIn<O> = O extends { readonly output: infer S } ? SchemaOutput<S> : unknown;

/** A child node's output: the child's result, or its `result` node's output. */
export type ChildOutput<O> = O extends { readonly workflow: infer W }
  ? W extends string
    ? unknown
    : O extends { readonly result: infer R }
      ? R extends keyof NodesOf<W>
        ? OutputOf<W, R>
        : unknown
      : ResultOf<W>
  : unknown;

/**
 * Refuses, at compile time, a child workflow whose input type does not accept the parent's input
 * (a child run's input is its parent's).
 */
export type ChildInputFits<Input, O> = O extends { readonly workflow: infer W }
  ? W extends string
    ? unknown
    : unknown extends Input
      ? unknown // an untyped parent: submit checks the input against the child's schema
      : [Input] extends [SubmitInputOf<W>]
        ? unknown
        : { readonly workflow: "the child workflow does not accept this workflow's input" }
  : unknown;

/** Schemas a builder holds beside its data, and child definitions given by value. */
interface BuilderSchemas {
  readonly input: unknown;
  readonly outputs: readonly (readonly [node: unknown, schema: unknown])[];
  readonly children: readonly (readonly [node: unknown, definition: WorkflowDefinition])[];
}

/**
 * An immutable workflow under construction. Its type parameters carry what TypeScript knows:
 * `Nodes`, each declared node's type, dependencies and output (so that `dependsOn` and `from`
 * autocomplete and handlers are typed), and the run input, as handlers see it (`Input`) and as
 * `submit` takes it (`SubmitInput`). Create one with {@link workflow}.
 */
export class WorkflowBuilder<
  Nodes extends NodeTypeMap = EmptyNodes,
  Input = unknown,
  SubmitInput = Input,
> {
  readonly #name: string;
  readonly #options: unknown;
  readonly #specs: readonly NodeSpec[];
  readonly #schemas: BuilderSchemas;

  /** @internal Use {@link workflow}. */
  constructor(name: string, options: unknown, specs: readonly NodeSpec[], schemas: BuilderSchemas) {
    this.#name = name;
    this.#options = options;
    this.#specs = specs;
    this.#schemas = schemas;
    Object.freeze(this);
  }

  /** The workflow's name. */
  get name(): string {
    return this.#name;
  }

  /** Adds a task node: a handler of `kind` runs once per attempt. */
  task<
    const N extends string,
    const K extends string,
    const O extends TaskNodeOptions<Names<Nodes>> = Record<never, never>,
  >(
    name: N,
    kind: K,
    options?: O,
  ): WorkflowBuilder<
    AddNode<
      Nodes,
      N,
      {
        type: 'task';
        kind: K;
        deps: DepsIn<O>;
        output: OutputIn<O>;
        from: never;
        itemOutput: never;
      }
    >,
    Input,
    SubmitInput
  > {
    return this.#add({ type: 'task', name, kind, options });
  }

  /** Adds a fan-out node: one item task of `kind` per element of the list output of `options.from`. */
  fanOut<
    const N extends string,
    const K extends string,
    const O extends FanOutOptions<Names<Nodes>>,
  >(
    name: N,
    kind: K,
    options: O,
  ): WorkflowBuilder<
    AddNode<
      Nodes,
      N,
      {
        type: 'fan_out';
        kind: K;
        deps: DepsIn<O> | (O['from'] & string);
        output: OutputIn<O>[];
        from: O['from'] & string;
        itemOutput: OutputIn<O>;
      }
    >,
    Input,
    SubmitInput
  > {
    return this.#add({ type: 'fan_out', name, kind, options });
  }

  /** Adds a node that waits for the signal `options.signal`; its output is `{ payload, timedOut }`. */
  waitSignal<const N extends string, const O extends WaitSignalOptions<Names<Nodes>>>(
    name: N,
    options: O,
  ): WorkflowBuilder<
    AddNode<Nodes, N, NodeInfoOf<'wait_signal', O, SignalWaitOutput>>,
    Input,
    SubmitInput
  > {
    return this.#add({ type: 'wait_signal', name, options });
  }

  /** Adds a node that waits for the first of `options.signals`; its output is `{ signal, payload, timedOut }`. */
  waitAny<const N extends string, const O extends WaitAnyOptions<Names<Nodes>>>(
    name: N,
    options: O,
  ): WorkflowBuilder<
    AddNode<Nodes, N, NodeInfoOf<'wait_any', O, AnySignalWaitOutput>>,
    Input,
    SubmitInput
  > {
    return this.#add({ type: 'wait_any', name, options });
  }

  /** Adds a quorum node: waits for `options.n` arrivals of `options.signal`; output `{ payloads, timedOut }`. */
  waitN<const N extends string, const O extends WaitNOptions<Names<Nodes>>>(
    name: N,
    options: O,
  ): WorkflowBuilder<
    AddNode<Nodes, N, NodeInfoOf<'wait_n', O, QuorumWaitOutput>>,
    Input,
    SubmitInput
  > {
    return this.#add({ type: 'wait_n', name, options });
  }

  /** Adds a timer node that completes `options.waitFor` after it is reached; output `{ firedAt }`. */
  waitTimer<const N extends string, const O extends WaitTimerOptions<Names<Nodes>>>(
    name: N,
    options: O,
  ): WorkflowBuilder<
    AddNode<Nodes, N, NodeInfoOf<'wait_timer', O, TimerWaitOutput>>,
    Input,
    SubmitInput
  > {
    return this.#add({ type: 'wait_timer', name, options });
  }

  /**
   * Adds a child node: starts a run of `options.workflow` (with this run's input) and completes
   * with its result. Given the child's built definition rather than its name, the node's output is
   * typed as the child's result, and the child's input schema checks this run's input at submit.
   */
  child<const N extends string, const O extends ChildOptions<Names<Nodes>>>(
    name: N,
    options: O & ChildInputFits<Input, O>,
  ): WorkflowBuilder<
    AddNode<Nodes, N, NodeInfoOf<'child', O, ChildOutput<O>>>,
    Input,
    SubmitInput
  > {
    return this.#add({ type: 'child', name, options });
  }

  /**
   * Checks the whole workflow and returns its built, deep-frozen definition.
   *
   * @throws ValidationError with subject `workflow "<name>"`, listing every problem: malformed or
   *   unknown options, duplicate names, unknown or self dependencies, cycles (named, e.g.
   *   `a -> b -> a`), a fan-out source that is not an upstream list, an empty workflow
   */
  build(): TypedDefinition<Input, Nodes, SubmitInput> {
    const issues: ValidationIssue[] = [];
    const name = this.#name;
    check(workflowNameSchema, name, 'name', issues);
    const defaults = resolveDefaults(this.#options, issues);
    const sketches: NodeSketch[] = [];
    const nodes: NodeDefinition[] = [];
    const isName = (value: unknown): value is string => nodeNameSchema.safeParse(value).success;
    const paths = nodePaths(this.#specs.map((spec) => (isName(spec.name) ? spec.name : undefined)));
    this.#specs.forEach((spec, position) => {
      const named = isName(spec.name);
      const base = paths[position]!;
      if (!named) check(nodeNameSchema, spec.name, joinPath(base, 'name'), issues);
      if (spec.type === 'task' || spec.type === 'fan_out')
        check(kindSchema, spec.kind, joinPath(base, 'kind'), issues);
      if (named) sketches.push(sketchOf(spec, position, spec.name));
      const node = buildNode(spec, { base, defaults, issues });
      if (node !== undefined) nodes.push(node);
    });
    issues.push(...definitionRuleIssues(name, sketches, this.#specs.length));
    const schemas = declaredSchemas(this.#schemas, issues);
    if (issues.length > 0) throw new ValidationError(`workflow ${JSON.stringify(name)}`, issues);
    return sealDefinition({ format: DefinitionFormat, name, defaults, nodes }, schemas);
  }

  // `Next` is the calling method's return type: each node method states in its signature what it
  // adds to the types, and the builder's data is the same whatever they are.
  #add<Next>(spec: NodeSpec): Next {
    const schemas = { ...this.#schemas };
    let options = spec.options;
    if (spec.type === 'task' || spec.type === 'fan_out') {
      const taken = takeOption(options, 'output');
      options = taken.rest;
      if (taken.value !== undefined)
        schemas.outputs = [...schemas.outputs, [spec.name, taken.value]];
    } else if (spec.type === 'child') {
      // A child given by definition is stored by name; its definition stays for types and checks.
      const child = (options as { workflow?: unknown } | undefined)?.workflow;
      if (isDefinitionLike(child)) {
        options = { ...(options as object), workflow: child.name };
        schemas.children = [...schemas.children, [spec.name, child]];
      }
    }
    // Copy the options so that changing the caller's object later cannot change this builder.
    const copy: NodeSpec = { ...spec, options: snapshot(options) };
    const next = new WorkflowBuilder(this.#name, this.#options, [...this.#specs, copy], schemas);
    return next as unknown as Next;
  }
}

/** The node names declared so far. */
export type Names<Nodes extends NodeTypeMap> = keyof Nodes & string;

/** What TypeScript knows of a node without a handler. */
export interface NodeInfoOf<T extends WorkflowNodeType, O, Output> {
  type: T;
  kind: never;
  deps: DepsIn<O>;
  output: Output;
  from: never;
  itemOutput: never;
}

/**
 * Takes one option out of an options object (a schema is code, not data: it must neither be
 * copied nor reach the strict option checks); anything that is not a plain object is left whole
 * for the checks to report.
 */
function takeOption(options: unknown, key: string): { value: unknown; rest: unknown } {
  if (typeof options !== 'object' || options === null || !(key in options))
    return { value: undefined, rest: options };
  const { [key]: value, ...rest } = options as Record<string, unknown>;
  return { value, rest };
}

function isDefinitionLike(value: unknown): value is WorkflowDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { name?: unknown }).name === 'string' &&
    Array.isArray((value as { nodes?: unknown }).nodes)
  );
}

/** The schemas to attach, each checked to be a Standard Schema; undefined when none was declared. */
function declaredSchemas(
  held: BuilderSchemas,
  issues: ValidationIssue[],
): DefinitionSchemas | undefined {
  const expectedSchema =
    'expected a Standard Schema (a zod, valibot or arktype schema, or typed<T>())';
  if (held.input !== undefined && !isStandardSchema(held.input))
    issues.push({ path: 'options.input', message: expectedSchema });
  const outputs = new Map<string, StandardSchemaV1>();
  for (const [node, schema] of held.outputs) {
    if (isStandardSchema(schema)) outputs.set(String(node), schema);
    else issues.push({ path: `nodes.${String(node)}.options.output`, message: expectedSchema });
  }
  if (held.input === undefined && outputs.size === 0 && held.children.length === 0)
    return undefined;
  return {
    ...(isStandardSchema(held.input) ? { input: held.input } : {}),
    outputs,
    children: new Map(held.children.map(([node, child]) => [String(node), child])),
  };
}

export type * from './workflow-options.js';
