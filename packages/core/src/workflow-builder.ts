import { snapshot } from './builder-values.js';
import { nodePaths } from './definition-graph.js';
import {
  DefinitionFormat,
  type NodeDefinition,
  type NodeSketch,
  type WorkflowDefinition,
  definitionRuleIssues,
  kindSchema,
  nodeNameSchema,
  sealDefinition,
  workflowNameSchema,
} from './definition.js';
import { ValidationError, type ValidationIssue } from './errors.js';
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
 * Declares a workflow: chain node methods, then call `build()`.
 *
 * @param name - the workflow's name, as registered on the worker and named by child nodes
 * @example
 * ```ts
 * export const order = workflow('order', { defaults: { maxAttempts: 5 } })
 *   .task('charge', 'payments.charge', { timeout: '30s' })
 *   .task('list-items', 'orders.items', { dependsOn: ['charge'] })
 *   .fanOut('pack', 'orders.pack-item', { from: 'list-items', maxParallel: 4 })
 *   .build();
 * ```
 */
export function workflow(name: string, options?: WorkflowOptions): WorkflowBuilder {
  return new WorkflowBuilder(name, snapshot(options), []);
}

/**
 * An immutable workflow under construction; `Names` collects the node names declared so far so
 * that `dependsOn` and `from` autocomplete them. Create one with {@link workflow}.
 */
export class WorkflowBuilder<Names extends string = never> {
  readonly #name: string;
  readonly #options: unknown;
  readonly #specs: readonly NodeSpec[];

  /** @internal Use {@link workflow}. */
  constructor(name: string, options: unknown, specs: readonly NodeSpec[]) {
    this.#name = name;
    this.#options = options;
    this.#specs = specs;
    Object.freeze(this);
  }

  /** The workflow's name. */
  get name(): string {
    return this.#name;
  }

  /** Adds a task node: a handler of `kind` runs once per attempt. */
  task<N extends string>(
    name: N,
    kind: string,
    options?: TaskNodeOptions<Names>,
  ): WorkflowBuilder<Names | N> {
    return this.#add({ type: 'task', name, kind, options });
  }

  /** Adds a fan-out node: one item task of `kind` per element of the list output of `options.from`. */
  fanOut<N extends string>(
    name: N,
    kind: string,
    options: FanOutOptions<Names>,
  ): WorkflowBuilder<Names | N> {
    return this.#add({ type: 'fan_out', name, kind, options });
  }

  /** Adds a node that waits for the signal `options.signal`; its output is `{ payload, timedOut }`. */
  waitSignal<N extends string>(
    name: N,
    options: WaitSignalOptions<Names>,
  ): WorkflowBuilder<Names | N> {
    return this.#add({ type: 'wait_signal', name, options });
  }

  /** Adds a node that waits for the first of `options.signals`; its output is `{ signal, payload, timedOut }`. */
  waitAny<N extends string>(name: N, options: WaitAnyOptions<Names>): WorkflowBuilder<Names | N> {
    return this.#add({ type: 'wait_any', name, options });
  }

  /** Adds a quorum node: waits for `options.n` arrivals of `options.signal`; output `{ payloads, timedOut }`. */
  waitN<N extends string>(name: N, options: WaitNOptions<Names>): WorkflowBuilder<Names | N> {
    return this.#add({ type: 'wait_n', name, options });
  }

  /** Adds a timer node that completes `options.waitFor` after it is reached; output `{ firedAt }`. */
  waitTimer<N extends string>(
    name: N,
    options: WaitTimerOptions<Names>,
  ): WorkflowBuilder<Names | N> {
    return this.#add({ type: 'wait_timer', name, options });
  }

  /** Adds a child node: starts a run of `options.workflow` and completes with its result. */
  child<N extends string>(name: N, options: ChildOptions<Names>): WorkflowBuilder<Names | N> {
    return this.#add({ type: 'child', name, options });
  }

  /**
   * Checks the whole workflow and returns its built, deep-frozen definition.
   *
   * @throws ValidationError with subject `workflow "<name>"`, listing every problem: malformed or
   *   unknown options, duplicate names, unknown or self dependencies, cycles (named, e.g.
   *   `a -> b -> a`), a fan-out source that is not an upstream list, an empty workflow
   */
  build(): WorkflowDefinition {
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
    if (issues.length > 0) throw new ValidationError(`workflow ${JSON.stringify(name)}`, issues);
    return sealDefinition({ format: DefinitionFormat, name, defaults, nodes });
  }

  #add<N extends string>(spec: NodeSpec): WorkflowBuilder<Names | N> {
    // Copy the options so that changing the caller's object later cannot change this builder.
    const copy: NodeSpec = { ...spec, options: snapshot(spec.options) };
    return new WorkflowBuilder<Names | N>(this.#name, this.#options, [...this.#specs, copy]);
  }
}

export type * from './workflow-options.js';
