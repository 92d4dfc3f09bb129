import { z } from 'zod';
import { type BackoffPolicy } from './backoff.js';
import { graphIssues, nodePaths, unknownNodeMessage, nearestName } from './definition-graph.js';
import { type OnDepFailure } from './error-kind.js';
import { type ValidationIssue, ValidationError } from './errors.js';
import { joinPath } from './json-payload.js';
import { stableHash } from './stable-hash.js';

/**
 * The built form of a workflow: plain JSON that the builder produces, the client submits, the
 * database stores and the worker reads, with a content hash that identifies it. Also the zod schema
 * and parser that check such JSON when it comes back from a database or another service.
 *
 * @packageDocumentation
 */

/**
 * The kinds of node a workflow definition can hold. Named `WorkflowNodeType` because the transition
 * table's `NodeType` also counts fan-out item tasks, which are steps but never declared nodes.
 */
export const WorkflowNodeType = {
  /** A handler runs once per attempt, claimed by a worker. */
  Task: 'task',
  /** Expands the list output of an upstream node into one item task per element. */
  FanOut: 'fan_out',
  /** Starts a run of another workflow and completes with its result. */
  Child: 'child',
  /** Waits for one named signal. */
  WaitSignal: 'wait_signal',
  /** Waits for the first of several named signals. */
  WaitAny: 'wait_any',
  /** Waits until a signal has arrived `n` times (a quorum). */
  WaitN: 'wait_n',
  /** Waits for a fixed time. */
  WaitTimer: 'wait_timer',
} as const;
export type WorkflowNodeType = (typeof WorkflowNodeType)[keyof typeof WorkflowNodeType];

/** Every node type, in declaration order. */
export const WORKFLOW_NODE_TYPES: readonly WorkflowNodeType[] = Object.values(WorkflowNodeType);

/** The version of the built format; a definition with another `format` is refused. */
export const DefinitionFormat = 1;

/**
 * What names of workflows, nodes, handler kinds and signals may look like: 1 to 128 characters from
 * `A-Z a-z 0-9 _ . : -`. Narrow on purpose, so names are safe in SQL values, URLs, log lines and
 * CLI arguments without quoting.
 */
export const NamePattern = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * The largest count (attempts, parallelism, items, quorum) a definition may hold: the range of the
 * Postgres `integer` columns these land in.
 */
export const MaxCount = 2_147_483_647;

/**
 * The longest task timeout, in milliseconds (about 24.8 days): the largest delay a JavaScript timer
 * can be given. A longer one would make `setTimeout` fire at once.
 */
export const MaxTimeoutMs = 2_147_483_647;

/** Fields every node has. */
interface NodeDefinitionBase<T extends WorkflowNodeType> {
  /** Unique within the workflow; what `dependsOn`, `ctx.deps` and `client.output` refer to. */
  readonly name: string;
  readonly type: T;
  /** Nodes that must complete before this one starts, in declaration order. */
  readonly dependsOn: readonly string[];
  /** What happens to this node when a dependency is discarded. */
  readonly onDepFailure: OnDepFailure;
}

/** Fields of nodes whose work a handler does (a task, and the item tasks of a fan-out). */
interface HandlerFields {
  /** The handler kind the worker runs, e.g. `payments.charge`. */
  readonly kind: string;
  /** Attempts before the step is discarded; a retry is scheduled after each failed one but the last. */
  readonly maxAttempts: number;
  /** Longest an attempt may run before it fails as retryable; absent means no timeout. */
  readonly timeoutMs?: number;
  /** Delay between attempts. */
  readonly backoff: BackoffPolicy;
}

/** A task node: one handler call per attempt. */
export interface TaskNodeDefinition extends NodeDefinitionBase<'task'>, HandlerFields {}

/**
 * A fan-out node: the list output of `from` becomes one item task per element, each running `kind`
 * with the node's attempts, timeout and backoff; the node's output is the item outputs in order.
 */
export interface FanOutNodeDefinition extends NodeDefinitionBase<'fan_out'>, HandlerFields {
  /** The upstream node whose output is the list; always also in `dependsOn`. */
  readonly from: string;
  /** Most item tasks running (or available) at once; absent means no limit. */
  readonly maxParallel?: number;
  /** Most elements the list may have; a longer list discards the node with error kind `permanent`. */
  readonly maxItems: number;
}

/** A child node: starts a run of another workflow and completes with its result. */
export interface ChildNodeDefinition extends NodeDefinitionBase<'child'> {
  /** The name of the child workflow, as registered on the worker. */
  readonly workflow: string;
  /** The node of the child workflow whose output becomes this node's output. */
  readonly result?: string;
  /** Longest wait for the child run; when it lapses the node is discarded. Absent means no limit. */
  readonly maxWaitMs?: number;
}

/** A signal wait: completes with `{ payload, timedOut }` when the signal arrives or the wait lapses. */
export interface WaitSignalNodeDefinition extends NodeDefinitionBase<'wait_signal'> {
  readonly signal: string;
  /** Longest wait; a lapse completes the node with `timedOut: true`. Absent means no limit. */
  readonly maxWaitMs?: number;
}

/** Waits for the first of several signals: completes with `{ signal, payload, timedOut }`. */
export interface WaitAnyNodeDefinition extends NodeDefinitionBase<'wait_any'> {
  /** The signal names, distinct, at least one. */
  readonly signals: readonly string[];
  /** Longest wait; a lapse completes the node with `timedOut: true`. Absent means no limit. */
  readonly maxWaitMs?: number;
}

/** A quorum: completes with `{ payloads, timedOut }` once `signal` has arrived `n` times. */
export interface WaitNNodeDefinition extends NodeDefinitionBase<'wait_n'> {
  readonly signal: string;
  /** How many arrivals complete the node, at least 1. */
  readonly n: number;
  /** Longest wait; a lapse completes the node with the payloads so far. Absent means no limit. */
  readonly maxWaitMs?: number;
}

/** A timer: completes with `{ firedAt }` once `waitForMs` has passed since it was reached. */
export interface WaitTimerNodeDefinition extends NodeDefinitionBase<'wait_timer'> {
  readonly waitForMs: number;
}

/** A node of a built workflow definition; `type` tells which. */
export type NodeDefinition =
  | TaskNodeDefinition
  | FanOutNodeDefinition
  | ChildNodeDefinition
  | WaitSignalNodeDefinition
  | WaitAnyNodeDefinition
  | WaitNNodeDefinition
  | WaitTimerNodeDefinition;

/** The defaults the builder applied to every task and fan-out node that did not set its own. */
export interface WorkflowDefaults {
  readonly maxAttempts: number;
  readonly timeoutMs?: number;
  readonly backoff: BackoffPolicy;
}

/** A built workflow: plain, deep-frozen JSON data with a content hash. */
export interface WorkflowDefinition {
  /** The version of this format. */
  readonly format: typeof DefinitionFormat;
  readonly name: string;
  /** {@link definitionHash} of everything else: equal hashes mean equal definitions. */
  readonly hash: string;
  /** Recorded for inspection; every node already carries its resolved values. */
  readonly defaults?: WorkflowDefaults;
  /** In declaration order. */
  readonly nodes: readonly NodeDefinition[];
}

// ---------------------------------------------------------------------------------------------
// Schema pieces. Each carries its own message ("expected ..., got ...") so issues read the same
// whether they come from the builder or from stored JSON.

/**
 * How a value is shown in an issue message: short, and `nothing` for a missing value.
 *
 * @internal
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? typeof value;
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * A zod error function that writes `<expectation>, got <value>`.
 *
 * @internal
 */
export function expected(expectation: string): (issue: { input?: unknown }) => string {
  return (issue) => `${expectation}, got ${describeValue(issue.input)}`;
}

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

const MaxWaitMs = Number.MAX_SAFE_INTEGER;

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

function nodeBase<T extends WorkflowNodeType>(type: T) {
  return {
    name: nodeNameSchema,
    type: z.literal(type, { error: expected(`expected "${type}"`) }),
    dependsOn: z.array(nodeNameSchema, { error: expected('expected an array of node names') }),
    onDepFailure: onDepFailureSchema,
  };
}

const handlerFields = {
  kind: kindSchema,
  maxAttempts: wholeNumberSchema(1, MaxCount),
  timeoutMs: wholeNumberSchema(1, MaxTimeoutMs, 'a timeout in milliseconds').optional(),
  backoff: backoffPolicySchema,
};

const maxWaitMs = wholeNumberSchema(1, MaxWaitMs, 'a wait in milliseconds').optional();

function nodeObject<S extends z.core.$ZodLooseShape>(what: string, shape: S) {
  return z.strictObject(shape, { error: expected(`expected ${what} object`) });
}

/** The zod schema of each node type's built form, by type. */
export const nodeDefinitionSchemas = {
  task: nodeObject('a task node', { ...nodeBase('task'), ...handlerFields }),
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

const envelopeShape = {
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

// ---------------------------------------------------------------------------------------------
// Rules beyond the shape of each node.

/**
 * What the definition rules read of a node: enough to check the graph and the references between
 * nodes even when the node's other options are invalid.
 *
 * @internal
 */
export interface NodeSketch {
  /** Index in declaration order. */
  readonly position: number;
  readonly name: string;
  readonly type: WorkflowNodeType;
  /** The dependencies that are well-formed names. */
  readonly dependsOn: readonly string[];
  /** Fan-out source, when well-formed. */
  readonly from?: string;
  /** Child workflow, when well-formed. */
  readonly workflow?: string;
}

interface RuleIssue {
  /** The node's declaration index; absent for an issue of the whole workflow. */
  readonly position?: number;
  readonly name?: string;
  readonly at: readonly (string | number)[];
  readonly message: string;
}

/** The sketch of a built node. */
function sketchOf(node: NodeDefinition, position: number): NodeSketch {
  return {
    position,
    name: node.name,
    type: node.type,
    dependsOn: node.dependsOn,
    ...(node.type === 'fan_out' ? { from: node.from } : {}),
    ...(node.type === 'child' ? { workflow: node.workflow } : {}),
  };
}

const ListOutputTypes: ReadonlySet<WorkflowNodeType> = new Set(['task', 'fan_out', 'child']);

function ruleIssueList(
  workflowName: string | undefined,
  sketches: readonly NodeSketch[],
  declared: number,
): RuleIssue[] {
  if (declared === 0) return [{ at: [], message: 'expected at least one node, got none' }];
  const issues: RuleIssue[] = graphIssues(sketches).map((issue) => {
    const sketch = sketches[issue.node]!;
    return { position: sketch.position, name: sketch.name, at: issue.at, message: issue.message };
  });
  const byName = new Map<string, NodeSketch>();
  for (const sketch of sketches) if (!byName.has(sketch.name)) byName.set(sketch.name, sketch);
  for (const sketch of sketches) {
    const where = { position: sketch.position, name: sketch.name };
    if (sketch.type === 'fan_out' && sketch.from !== undefined) {
      const source = byName.get(sketch.from);
      if (sketch.from === sketch.name) {
        issues.push({
          ...where,
          at: ['from'],
          message: `fan-out node "${sketch.name}" takes its list from itself, expected an upstream node`,
        });
      } else if (source === undefined) {
        issues.push({
          ...where,
          at: ['from'],
          message: unknownNodeMessage(sketch.from, [...byName.keys()]),
        });
      } else if (!ListOutputTypes.has(source.type)) {
        issues.push({
          ...where,
          at: ['from'],
          message: `"${sketch.from}" is a ${source.type} node (its output is an object, never a list), expected a task, fan_out or child node`,
        });
      } else if (!sketch.dependsOn.includes(sketch.from)) {
        issues.push({
          ...where,
          at: ['dependsOn'],
          message: `expected to include "${sketch.from}", the node named in from`,
        });
      }
    }
    if (
      sketch.type === 'child' &&
      sketch.workflow !== undefined &&
      sketch.workflow === workflowName
    ) {
      issues.push({
        ...where,
        at: ['workflow'],
        message: `workflow "${workflowName}" cannot start itself as a child (every run would start another without end), expected another workflow`,
      });
    }
  }
  return issues;
}

/**
 * The rules of a definition beyond the shape of each node, as issues with paths: at least one node,
 * the graph rules of `graphIssues`, a fan-out's `from` naming an upstream node with list output
 * (and listed in its `dependsOn`), and no child node starting its own workflow.
 *
 * @param declared - how many nodes were declared, including those that could not be sketched
 * @internal
 */
export function definitionRuleIssues(
  workflowName: string | undefined,
  sketches: readonly NodeSketch[],
  declared: number,
): ValidationIssue[] {
  const list = nodePaths(
    sketches.map((sketch) => sketch.name),
    sketches.map((sketch) => sketch.position),
  );
  const paths = new Map(sketches.map((sketch, i) => [sketch.position, list[i]!]));
  return ruleIssueList(workflowName, sketches, declared).map((issue) => ({
    path:
      issue.position === undefined ? 'nodes' : joinPath(paths.get(issue.position)!, ...issue.at),
    message: issue.message,
  }));
}

/** Every rule a structurally valid definition breaks beyond its shape (graph, fan-out sources), as issues. */
export function definitionIssues(
  definition: Pick<WorkflowDefinition, 'name' | 'nodes'>,
): ValidationIssue[] {
  const sketches = definition.nodes.map((node, position) => sketchOf(node, position));
  return definitionRuleIssues(definition.name, sketches, definition.nodes.length);
}

// ---------------------------------------------------------------------------------------------
// Zod issues to Cyclone issues.

/**
 * Converts zod issues to {@link ValidationIssue}s under `base`; an unknown key becomes one issue per
 * key, with a "did you mean" hint drawn from the keys `schema` accepts there.
 *
 * @param noun - what a key is called in messages: `option` for the builder, `field` for stored JSON
 * @internal
 */
export function issuesFromZod(
  error: z.ZodError,
  base: string,
  schema: z.ZodType,
  noun: 'option' | 'field',
): ValidationIssue[] {
  return error.issues.flatMap((issue): ValidationIssue[] => {
    const path = joinPath(base, ...issue.path);
    if (issue.code !== 'unrecognized_keys') return [{ path, message: issue.message }];
    const known = keysAt(schema, issue.path);
    return issue.keys.map((key) => {
      const nearest = nearestName(key, known);
      const hint = nearest === undefined ? '' : ` (did you mean "${nearest}"?)`;
      return {
        path: joinPath(path, key),
        message: `unknown ${noun} "${key}"${hint}, expected one of: ${known.join(', ')}`,
      };
    });
  });
}

/** The keys an object schema accepts at `path`, looking through optional and array wrappers. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: unknown = schema;
  for (const segment of [...path, undefined]) {
    while (current instanceof z.ZodOptional) current = current.unwrap();
    if (segment === undefined) break;
    if (current instanceof z.ZodObject)
      current = (current.shape as Record<string, unknown>)[String(segment)];
    else if (current instanceof z.ZodArray) current = current.element;
    else return [];
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function nodeTypeMessage(input: unknown): string {
  const type =
    typeof input === 'object' && input !== null ? (input as { type?: unknown }).type : input;
  return `expected a node type, one of ${WORKFLOW_NODE_TYPES.join(', ')}, got ${describeValue(type)}`;
}

function firstRepeat(input: unknown): unknown {
  if (!Array.isArray(input)) return undefined;
  return input.find((item, index) => input.indexOf(item) !== index);
}

// ---------------------------------------------------------------------------------------------
// Hash, freezing, parsing.

/** The hash a definition must carry: {@link stableHash} of everything but its `hash` field. */
export function definitionHash(
  definition: Omit<WorkflowDefinition, 'hash'> | WorkflowDefinition,
): string {
  const { hash: _ignored, ...content } = definition as WorkflowDefinition;
  return stableHash(content);
}

/**
 * Adds the hash and deep-freezes. It does not validate: use the builder or
 * {@link parseWorkflowDefinition} to obtain definitions.
 *
 * @internal
 */
export function sealDefinition(draft: Omit<WorkflowDefinition, 'hash'>): WorkflowDefinition {
  const definition: WorkflowDefinition = {
    format: draft.format,
    name: draft.name,
    hash: definitionHash(draft),
    ...(draft.defaults === undefined ? {} : { defaults: draft.defaults }),
    nodes: draft.nodes,
  };
  return deepFreeze(definition);
}

/**
 * Checks JSON that claims to be a built workflow definition (from a database, a queue or another
 * service) and returns it as a deep-frozen {@link WorkflowDefinition}. Checks the shape of every
 * node, the graph rules (unique names, known dependencies, no cycles, fan-out sources) and that the
 * hash matches the content.
 *
 * @throws ValidationError with subject `workflow definition "<name>"` listing every problem found
 */
export function parseWorkflowDefinition(json: unknown): WorkflowDefinition {
  const record = isRecord(json) ? json : undefined;
  const name = typeof record?.name === 'string' ? record.name : undefined;
  const subject = name === undefined ? 'workflow definition' : `workflow definition "${name}"`;
  const envelopeSchema = z.strictObject(
    {
      ...envelopeShape,
      nodes: z.array(z.unknown(), { error: expected('expected an array of nodes') }),
    },
    { error: expected('expected a workflow definition object') },
  );
  const issues: ValidationIssue[] = [];
  const envelope = envelopeSchema.safeParse(json, { reportInput: true });
  if (!envelope.success) issues.push(...issuesFromZod(envelope.error, '', envelopeSchema, 'field'));

  const rawNodes: readonly unknown[] = Array.isArray(record?.nodes) ? record.nodes : [];
  const nodes: NodeDefinition[] = [];
  const paths = nodePaths(rawNodes.map((raw) => (isRecord(raw) ? raw.name : undefined)));
  rawNodes.forEach((raw, position) => {
    const base = paths[position]!;
    const type = isRecord(raw) ? raw.type : undefined;
    if (!isWorkflowNodeType(type)) {
      issues.push({ path: joinPath(base, 'type'), message: nodeTypeMessage(type) });
      return;
    }
    const schema: z.ZodType<NodeDefinition> = nodeDefinitionSchemas[type];
    const result = schema.safeParse(raw, { reportInput: true });
    if (result.success) nodes.push(result.data);
    else issues.push(...issuesFromZod(result.error, base, schema, 'field'));
  });
  // The rules need whole nodes, so they run once every node has the right shape.
  if (issues.length === 0) issues.push(...definitionIssues({ name: name ?? '', nodes }));
  if (issues.length > 0 || !envelope.success) throw new ValidationError(subject, issues);

  const { hash, ...content } = envelope.data;
  const definition = sealDefinition({ ...content, nodes });
  if (definition.hash !== hash) {
    throw new ValidationError(subject, [
      {
        path: 'hash',
        message: `expected ${definition.hash} (the hash of the definition's content), got ${hash}: the definition was changed after it was built`,
      },
    ]);
  }
  return definition;
}

/** Whether a value is one of the node types. */
export function isWorkflowNodeType(value: unknown): value is WorkflowNodeType {
  return typeof value === 'string' && (WORKFLOW_NODE_TYPES as readonly string[]).includes(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Freezes a value and everything reachable from it.
 *
 * @internal
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
