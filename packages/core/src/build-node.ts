/**
 * How `build()` turns each declared node into its definition: options parsed against their
 * schemas, workflow defaults applied, every problem collected as a {@link ValidationIssue}.
 *
 * @packageDocumentation
 */
import { type z } from 'zod';
import { type BackoffPolicy, DefaultBackoff } from './backoff.js';
import { compact, ms } from './builder-values.js';
import {
  type NodeDefinition,
  type NodeSketch,
  type WorkflowDefaults,
  type WorkflowNodeType,
  backoffOrderMessage,
  issuesFromZod,
  nodeNameSchema,
} from './definition.js';
import { type Duration, toMilliseconds } from './duration.js';
import { OnDepFailure } from './error-kind.js';
import { type ValidationIssue } from './errors.js';
import { joinPath } from './json-payload.js';
import { DefaultMaxAttempts, MaxFanOutItems } from './limits.js';
import { optionSchemas, workflowOptionsSchema } from './workflow-option-schemas.js';
import { type BackoffOptions } from './workflow-options.js';

/** A node as declared: checked only by `build()`, so that every problem is reported together. */
export interface NodeSpec {
  readonly type: WorkflowNodeType;
  readonly name: unknown;
  readonly kind?: unknown;
  readonly options: unknown;
}

/** What resolving a node needs besides its own options. */
export interface BuildContext {
  readonly base: string;
  readonly defaults: WorkflowDefaults;
  readonly issues: ValidationIssue[];
}

export function buildNode(spec: NodeSpec, context: BuildContext): NodeDefinition | undefined {
  const name = spec.name as string;
  const kind = spec.kind as string;
  switch (spec.type) {
    case 'task': {
      const o = parseOptions(optionSchemas.task, spec.options, context) ?? {};
      const handler = handlerFields(o, context);
      const cache =
        o.cache === undefined
          ? undefined
          : {
              ttlMs: ms(o.cache.ttl) as number,
              ...(o.cache.key === undefined ? {} : { key: o.cache.key }),
            };
      return handler && compact({ ...common(name, 'task', o), kind, ...handler, cache });
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
    concurrencyKey?: string | undefined;
    priority?: number | undefined;
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
    concurrencyKey: options.concurrencyKey,
    priority: options.priority,
  };
}

export function resolveDefaults(options: unknown, issues: ValidationIssue[]): WorkflowDefaults {
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

export function check(
  schema: z.ZodType,
  value: unknown,
  path: string,
  issues: ValidationIssue[],
): void {
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) issues.push(...issuesFromZod(result.error, path, schema, 'option'));
}

/** What the graph rules need, read from the raw options so that they run even when others fail. */
export function sketchOf(spec: NodeSpec, position: number, name: string): NodeSketch {
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
