import { type BackoffPolicy } from './backoff.js';
import { type OnDepFailure } from './error-kind.js';

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
export interface NodeDefinitionBase<T extends WorkflowNodeType> {
  /** Unique within the workflow; what `dependsOn`, `ctx.deps` and `client.output` refer to. */
  readonly name: string;
  readonly type: T;
  /** Nodes that must complete before this one starts, in declaration order. */
  readonly dependsOn: readonly string[];
  /** What happens to this node when a dependency is discarded. */
  readonly onDepFailure: OnDepFailure;
}

/** Fields of nodes whose work a handler does (a task, and the item tasks of a fan-out). */
export interface HandlerFields {
  /** The handler kind the worker runs, e.g. `payments.charge`. */
  readonly kind: string;
  /** Attempts before the step is discarded; a retry is scheduled after each failed one but the last. */
  readonly maxAttempts: number;
  /** Longest an attempt may run before it fails as retryable; absent means no timeout. */
  readonly timeoutMs?: number;
  /** Delay between attempts. */
  readonly backoff: BackoffPolicy;
  /** A dot path into the run input whose value is the step's concurrency key. */
  readonly concurrencyKey?: string;
  /** Claimed before the steps of the kind with a lower priority (default 0). */
  readonly priority?: number;
}

/** A task node: one handler call per attempt. */
export interface TaskNodeDefinition extends NodeDefinitionBase<'task'>, HandlerFields {
  /** The node's result cache; absent means its outputs are neither looked up nor kept. */
  readonly cache?: CacheDefinition;
}

/** A task node's result cache, as built. */
export interface CacheDefinition {
  /** How long an output serves other steps of the kind, from its step's completion. */
  readonly ttlMs: number;
  /** A dot path into the run input whose value is the key; absent: a hash of kind, input and deps. */
  readonly key?: string;
}

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
