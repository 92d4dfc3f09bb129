import { z } from 'zod';
import { type BackoffPolicy } from './backoff.js';
import { describeValue, expected, firstRepeat, nodeTypeMessage } from './definition-messages.js';
import { ruleIssueList, sketchOf } from './definition-rules.js';
import {
  DefinitionFormat,
  MaxCount,
  MaxTimeoutMs,
  NamePattern,
  type NodeDefinition,
  type WorkflowDefinition,
  type WorkflowNodeType,
} from './definition-types.js';
import { dotPathSchema, prioritySchema } from './flow-control.js';

// ---------------------------------------------------------------------------------------------
// Schema pieces. Each carries its own message ("expected ..., got ...") so issues read the same
// whether they come from the builder or from stored JSON.

/**
 * A schema for a name matching {@link NamePattern}; `what` says which name, e.g. `a node name`.
 *
 * @internal
 */
export function nameSchema(what: string) {
  return z.custom<string>((value) => typeof value === 'string' && NamePattern.test(value), {
    error: expected(`expected ${what}: 1 to 128 characters from A-Z a-z 0-9 _ . : -`),
  });
}

/**
 * A schema for a whole number in `[min, max]`.
 *
 * @internal
 */
export function wholeNumberSchema(min: number, max: number, what = 'a whole number') {
  return z.custom<number>(
    (value) => typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max,
    { error: expected(`expected ${what} from ${min} to ${max}`) },
  );
}

/**
 * A schema for a number in `[min, max]`, fractions allowed.
 *
 * @internal
 */
export function numberSchema(min: number, max: number, what: string) {
  return z.custom<number>(
    (value) => typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max,
    { error: expected(`expected ${what} from ${min} to ${max}`) },
  );
}

/**
 * A schema for a list of distinct names.
 *
 * @internal
 */
export function nameListSchema(what: string, minItems: number) {
  return z
    .array(nameSchema(what), { error: expected(`expected an array of ${what}s`) })
    .refine((items) => items.length >= minItems, {
      error: expected(`expected at least ${minItems} ${what}`),
    })
    .refine((items) => new Set(items).size === items.length, {
      error: (issue) =>
        `expected distinct ${what}s, got ${describeValue(firstRepeat(issue.input))} twice`,
    });
}

/**
 * The schema of an {@link OnDepFailure} value.
 *
 * @internal
 */
export const onDepFailureSchema = z.enum(['fail_run', 'cancel_branch'], {
  error: expected('expected "fail_run" or "cancel_branch" (OnDepFailure.FailRun or .CancelBranch)'),
});

/** The schema of a node name. @internal */
export const nodeNameSchema = nameSchema('a node name');
/** The schema of a handler kind. @internal */
export const kindSchema = nameSchema('a handler kind');
/** The schema of a signal name. @internal */
export const signalNameSchema = nameSchema('a signal name');
/** The schema of a workflow name. @internal */
export const workflowNameSchema = nameSchema('a workflow name');

export const MaxWaitMs = Number.MAX_SAFE_INTEGER;

/** The zod schema of a built {@link BackoffPolicy}. */
export const backoffPolicySchema = z
  .strictObject(
    {
      initialMs: wholeNumberSchema(0, MaxWaitMs, 'a delay in milliseconds'),
      maxMs: wholeNumberSchema(0, MaxWaitMs, 'a delay in milliseconds'),
      factor: numberSchema(1, 1000, 'a growth factor'),
      jitter: numberSchema(0, 1, 'a jitter fraction'),
    },
    { error: expected('expected a backoff policy { initialMs, maxMs, factor, jitter }') },
  )
  .refine((policy) => policy.initialMs <= policy.maxMs, {
    error: (issue) => backoffOrderMessage(issue.input),
  });

/**
 * The message for a backoff whose initial delay exceeds its maximum.
 *
 * @internal
 */
export function backoffOrderMessage(input: unknown): string {
  const policy = input as Partial<BackoffPolicy> | undefined;
  return `expected the initial delay (${policy?.initialMs}ms) not to exceed the maximum (${policy?.maxMs}ms)`;
}

export function nodeBase<T extends WorkflowNodeType>(type: T) {
  return {
    name: nodeNameSchema,
    type: z.literal(type, { error: expected(`expected "${type}"`) }),
    dependsOn: z.array(nodeNameSchema, { error: expected('expected an array of node names') }),
    onDepFailure: onDepFailureSchema,
  };
}

export const handlerFields = {
  kind: kindSchema,
  maxAttempts: wholeNumberSchema(1, MaxCount),
  timeoutMs: wholeNumberSchema(1, MaxTimeoutMs, 'a timeout in milliseconds').optional(),
  backoff: backoffPolicySchema,
  concurrencyKey: dotPathSchema.optional(),
  priority: prioritySchema.optional(),
};

export const maxWaitMs = wholeNumberSchema(1, MaxWaitMs, 'a wait in milliseconds').optional();

export function nodeObject<S extends z.core.$ZodLooseShape>(what: string, shape: S) {
  return z.strictObject(shape, { error: expected(`expected ${what} object`) });
}

/** The zod schema of each node type's built form, by type. */
export const nodeDefinitionSchemas = {
  task: nodeObject('a task node', {
    ...nodeBase('task'),
    ...handlerFields,
    cache: z
      .strictObject(
        {
          ttlMs: wholeNumberSchema(1, MaxWaitMs, 'a time to live in milliseconds'),
          key: dotPathSchema.optional(),
        },
        { error: expected('expected a cache object { ttlMs, key? }') },
      )
      .optional(),
  }),
  fan_out: nodeObject('a fan_out node', {
    ...nodeBase('fan_out'),
    ...handlerFields,
    from: nodeNameSchema,
    maxParallel: wholeNumberSchema(1, MaxCount).optional(),
    maxItems: wholeNumberSchema(1, MaxCount),
  }),
  child: nodeObject('a child node', {
    ...nodeBase('child'),
    workflow: workflowNameSchema,
    result: nodeNameSchema.optional(),
    maxWaitMs,
  }),
  wait_signal: nodeObject('a wait_signal node', {
    ...nodeBase('wait_signal'),
    signal: signalNameSchema,
    maxWaitMs,
  }),
  wait_any: nodeObject('a wait_any node', {
    ...nodeBase('wait_any'),
    signals: nameListSchema('signal name', 1),
    maxWaitMs,
  }),
  wait_n: nodeObject('a wait_n node', {
    ...nodeBase('wait_n'),
    signal: signalNameSchema,
    n: wholeNumberSchema(1, MaxCount),
    maxWaitMs,
  }),
  wait_timer: nodeObject('a wait_timer node', {
    ...nodeBase('wait_timer'),
    waitForMs: wholeNumberSchema(0, MaxWaitMs, 'a wait in milliseconds'),
  }),
} as const satisfies Record<WorkflowNodeType, z.ZodType<NodeDefinition>>;

/** The zod schema of any built node, discriminated on `type`. */
export const nodeDefinitionSchema = z.discriminatedUnion(
  'type',
  [
    nodeDefinitionSchemas.task,
    nodeDefinitionSchemas.fan_out,
    nodeDefinitionSchemas.child,
    nodeDefinitionSchemas.wait_signal,
    nodeDefinitionSchemas.wait_any,
    nodeDefinitionSchemas.wait_n,
    nodeDefinitionSchemas.wait_timer,
  ],
  { error: (issue) => nodeTypeMessage(issue.input) },
);

/** The zod schema of the built {@link WorkflowDefaults}. */
export const workflowDefaultsSchema = z.strictObject(
  {
    maxAttempts: wholeNumberSchema(1, MaxCount),
    timeoutMs: wholeNumberSchema(1, MaxTimeoutMs, 'a timeout in milliseconds').optional(),
    backoff: backoffPolicySchema,
  },
  { error: expected('expected workflow defaults { maxAttempts, timeoutMs?, backoff }') },
);

export const envelopeShape = {
  format: z.literal(DefinitionFormat, { error: expected(`expected format ${DefinitionFormat}`) }),
  name: workflowNameSchema,
  hash: z.custom<string>((value) => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value), {
    error: expected('expected a hash of 64 lowercase hex digits'),
  }),
  defaults: workflowDefaultsSchema.optional(),
};

/**
 * The zod schema of a whole built {@link WorkflowDefinition}, graph rules included (unique names,
 * known dependencies, no cycles, fan-out sources). It does not recompute the hash; use
 * {@link parseWorkflowDefinition} for that and for issue paths that name nodes.
 */
export const workflowDefinitionSchema = z
  .strictObject(
    {
      ...envelopeShape,
      nodes: z.array(nodeDefinitionSchema, { error: expected('expected an array of nodes') }),
    },
    { error: expected('expected a workflow definition object') },
  )
  .superRefine((definition, context) => {
    const sketches = definition.nodes.map((node, position) => sketchOf(node, position));
    for (const issue of ruleIssueList(definition.name, sketches, definition.nodes.length)) {
      const at = issue.position === undefined ? ['nodes'] : ['nodes', issue.position, ...issue.at];
      context.addIssue({ code: 'custom', path: at, message: issue.message });
    }
  }) satisfies z.ZodType<WorkflowDefinition>;
