import { type z } from 'zod';
import { type BackoffPolicy, DefaultBackoff } from './backoff.js';
import { compact, ms, snapshot } from './builder-values.js';
import { nodePaths } from './definition-graph.js';
import {
  DefinitionFormat,
  type NodeDefinition,
  type NodeSketch,
  type WorkflowDefaults,
  type WorkflowDefinition,
  type WorkflowNodeType,
  backoffOrderMessage,
  definitionRuleIssues,
  issuesFromZod,
  kindSchema,
  nodeNameSchema,
  sealDefinition,
  workflowNameSchema,
} from './definition.js';
import { type Duration, toMilliseconds } from './duration.js';
import { OnDepFailure } from './error-kind.js';
import { ValidationError, type ValidationIssue } from './errors.js';
import { joinPath } from './json-payload.js';
import { DefaultMaxAttempts, MaxFanOutItems } from './limits.js';
import { optionSchemas, workflowOptionsSchema } from './workflow-option-schemas.js';
import {
  type BackoffOptions,
  type ChildOptions,
  type FanOutOptions,
  type TaskOptions,
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
// ---------------------------------------------------------------------------------------------

/** A node as declared: checked only by `build()`, so that every problem is reported together. */
interface NodeSpec {
  readonly type: WorkflowNodeType;
  readonly name: unknown;
  readonly kind?: unknown;
  readonly options: unknown;
}

/** What resolving a node needs besides its own options. */
interface BuildContext {
  readonly base: string;
  readonly defaults: WorkflowDefaults;
  readonly issues: ValidationIssue[];
}

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
    options?: TaskOptions<Names>,
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

function buildNode(spec: NodeSpec, context: BuildContext): NodeDefinition | undefined {
  const name = spec.name as string;
  const kind = spec.kind as string;
  switch (spec.type) {
    case 'task': {
      const o = parseOptions(optionSchemas.task, spec.options, context) ?? {};
      const handler = handlerFields(o, context);
      return handler && compact({ ...common(name, 'task', o), kind, ...handler });
    }
    case 'fan_out': {
      const o = parseOptions(optionSchemas.fan_out, spec.options, context);
      const handler = o && handlerFields(o, context);
      if (!o || !handler) return undefined;
      const base = common(name, 'fan_out', o);
      // The source's output is the list, so the node cannot start before it completes.
      const dependsOn = base.dependsOn.includes(o.from)
        ? base.dependsOn
        : [...base.dependsOn, o.from];
      return compact({
        ...base,
        dependsOn,
        kind,
        ...handler,
        from: o.from,
        maxParallel: o.maxParallel,
        maxItems: o.maxItems ?? MaxFanOutItems,
      });
    }
    case 'wait_signal': {
      const o = parseOptions(optionSchemas.wait_signal, spec.options, context);
      return (
        o &&
        compact({ ...common(name, 'wait_signal', o), signal: o.signal, maxWaitMs: ms(o.maxWait) })
      );
    }
    case 'wait_any': {
      const o = parseOptions(optionSchemas.wait_any, spec.options, context);
      return (
        o &&
        compact({
          ...common(name, 'wait_any', o),
          signals: [...o.signals],
          maxWaitMs: ms(o.maxWait),
        })
      );
    }
    case 'wait_n': {
      const o = parseOptions(optionSchemas.wait_n, spec.options, context);
      return (
        o &&
        compact({
          ...common(name, 'wait_n', o),
          signal: o.signal,
          n: o.n,
          maxWaitMs: ms(o.maxWait),
        })
      );
    }
    case 'wait_timer': {
      const o = parseOptions(optionSchemas.wait_timer, spec.options, context);
      return o && { ...common(name, 'wait_timer', o), waitForMs: toMilliseconds(o.waitFor) };
    }
    case 'child': {
      const o = parseOptions(optionSchemas.child, spec.options, context);
      return (
        o &&
        compact({
          ...common(name, 'child', o),
          workflow: o.workflow,
          result: o.result,
          maxWaitMs: ms(o.maxWait),
        })
      );
    }
  }
}

function common<T extends WorkflowNodeType>(
  name: string,
  type: T,
  options: {
    readonly dependsOn?: readonly string[] | undefined;
    readonly onDepFailure?: OnDepFailure | undefined;
  },
) {
  return {
    name,
    type,
    dependsOn: [...(options.dependsOn ?? [])],
    onDepFailure: options.onDepFailure ?? OnDepFailure.FailRun,
  };
}

/** Resolves attempts, timeout and backoff of a task or fan-out against the workflow defaults. */
function handlerFields(
  options: {
    maxAttempts?: number | undefined;
    timeout?: Duration | undefined;
    backoff?: BackoffOptions | undefined;
  },
  context: BuildContext,
) {
  const backoff = resolveBackoff(
    options.backoff,
    context.defaults.backoff,
    joinPath(context.base, 'backoff'),
    context.issues,
  );
  if (backoff === undefined) return undefined;
  return {
    maxAttempts: options.maxAttempts ?? context.defaults.maxAttempts,
    timeoutMs: ms(options.timeout) ?? context.defaults.timeoutMs,
    backoff,
  };
}

function resolveDefaults(options: unknown, issues: ValidationIssue[]): WorkflowDefaults {
  const fallback: WorkflowDefaults = { maxAttempts: DefaultMaxAttempts, backoff: DefaultBackoff };
  const result = workflowOptionsSchema.safeParse(options, { reportInput: true });
  if (!result.success) {
    issues.push(...issuesFromZod(result.error, 'options', workflowOptionsSchema, 'option'));
    return fallback;
  }
  const defaults = result.data?.defaults ?? {};
  const backoff = resolveBackoff(
    defaults.backoff,
    DefaultBackoff,
    'options.defaults.backoff',
    issues,
  );
  return compact({
    maxAttempts: defaults.maxAttempts ?? DefaultMaxAttempts,
    timeoutMs: ms(defaults.timeout),
    backoff: backoff ?? DefaultBackoff,
  });
}

/** Fills unset backoff fields from `fallback`; reports an initial delay above the maximum. */
function resolveBackoff(
  options: BackoffOptions | undefined,
  fallback: BackoffPolicy,
  path: string,
  issues: ValidationIssue[],
): BackoffPolicy | undefined {
  const policy: BackoffPolicy = {
    initialMs: ms(options?.initial) ?? fallback.initialMs,
    maxMs: ms(options?.max) ?? fallback.maxMs,
    factor: options?.factor ?? fallback.factor,
    jitter: options?.jitter ?? fallback.jitter,
  };
  if (policy.initialMs > policy.maxMs) {
    issues.push({ path, message: backoffOrderMessage(policy) });
    return undefined;
  }
  return policy;
}

function parseOptions<S extends z.ZodType>(
  schema: S,
  value: unknown,
  context: BuildContext,
): z.output<S> | undefined {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  context.issues.push(...issuesFromZod(result.error, context.base, schema, 'option'));
  return undefined;
}

function check(schema: z.ZodType, value: unknown, path: string, issues: ValidationIssue[]): void {
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) issues.push(...issuesFromZod(result.error, path, schema, 'option'));
}

/** What the graph rules need, read from the raw options so that they run even when others fail. */
function sketchOf(spec: NodeSpec, position: number, name: string): NodeSketch {
  const options = (
    typeof spec.options === 'object' && spec.options !== null ? spec.options : {}
  ) as Record<string, unknown>;
  const wellFormed = (value: unknown): value is string => nodeNameSchema.safeParse(value).success;
  const dependsOn = Array.isArray(options.dependsOn) ? options.dependsOn.filter(wellFormed) : [];
  const from = spec.type === 'fan_out' && wellFormed(options.from) ? options.from : undefined;
  const child =
    spec.type === 'child' && wellFormed(options.workflow) ? options.workflow : undefined;
  return {
    position,
    name,
    type: spec.type,
    dependsOn: from === undefined || dependsOn.includes(from) ? dependsOn : [...dependsOn, from],
    ...(from === undefined ? {} : { from }),
    ...(child === undefined ? {} : { workflow: child }),
  };
}

export type * from './workflow-options.js';
