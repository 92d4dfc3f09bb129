import { type WorkflowDefinition } from './definition-types.js';
import { type Duration } from './duration.js';
import { type OnDepFailure } from './error-kind.js';
import { type StandardSchemaV1 } from './standard-schema.js';

/** The options of the workflow builder's methods, as a caller writes them. */
// `string & {}` keeps the literal names from collapsing into `string`, so editors still list them.
/**
 * A node name: the names declared so far are offered by autocomplete, and any other string is
 * accepted, since a dependency may be declared later (`build()` checks that it exists).
 */
export type NodeRef<Names extends string> = Names | (string & {});

/** Backoff between attempts, in the builder's units; unset fields fall back to the workflow defaults. */
export interface BackoffOptions {
  /**
   * Delay after the first failed attempt.
   * @defaultValue `'1s'`
   */
  readonly initial?: Duration;
  /**
   * Upper bound of any delay.
   * @defaultValue `'10m'`
   */
  readonly max?: Duration;
  /**
   * Growth per failed attempt, from 1 (constant) to 1000.
   * @defaultValue `2`
   */
  readonly factor?: number;
  /**
   * Share of each delay, from 0 to 1, that is randomly taken off (see `backoffDelay`).
   * @defaultValue `0.2`
   */
  readonly jitter?: number;
}

/** Options every node accepts. */
export interface NodeOptions<Names extends string = string> {
  /**
   * Nodes that must complete before this one starts.
   * @defaultValue `[]` (the node starts with the run)
   */
  readonly dependsOn?: readonly NodeRef<Names>[];
  /**
   * What happens to this node when a dependency is discarded.
   * @defaultValue `OnDepFailure.FailRun`
   */
  readonly onDepFailure?: OnDepFailure;
}

/** Options of nodes whose work a handler does: `task` and `fanOut` (for each item task). */
export interface TaskOptions<Names extends string = string> extends NodeOptions<Names> {
  /**
   * Attempts before the step is discarded.
   * @defaultValue the workflow's `defaults.maxAttempts`, else `DefaultMaxAttempts` (3)
   */
  readonly maxAttempts?: number;
  /**
   * Longest an attempt may run (at most about 24.8 days, the longest JavaScript timer); a timeout
   * fails the attempt as retryable.
   * @defaultValue the workflow's `defaults.timeout`, else no timeout
   */
  readonly timeout?: Duration;
  /** Delay between attempts; unset fields come from the workflow's defaults, then `DefaultBackoff`. */
  readonly backoff?: BackoffOptions;
  /**
   * A dot path into the run input (`'customerId'`, `'order.customer.id'`) whose value is the step's
   * concurrency key, which a per-key concurrency cap or rate limit of the kind counts by. A run
   * input without the field gives no key. Wins over `submit`'s `concurrencyKey`.
   * @defaultValue `submit`'s `concurrencyKey`, else no key
   */
  readonly concurrencyKey?: string;
  /**
   * Among claimable steps of the kind, a higher priority is claimed first, then the oldest; any
   * safe integer. Wins over `submit`'s `priority`.
   * @defaultValue `submit`'s `priority`, else 0
   */
  readonly priority?: number;
}

/** A task's result cache: the `cache` option of `.task()`. */
export interface CacheOptions {
  /**
   * How long a handler's output serves later steps of the kind with the same key, from that step's
   * completion; a hit does not extend it.
   */
  readonly ttl: Duration;
  /**
   * A dot path into the run input whose value is the cache key (`'reportId'`). A run input without
   * the field (or with null there) is not cached: the step runs as usual.
   * @defaultValue a hash of the kind, the run input and the outputs of the node's dependencies
   */
  readonly key?: string;
}

/** Options of `task`. */
export interface TaskNodeOptions<Names extends string = string> extends TaskOptions<Names> {
  /**
   * The node's output: a Standard Schema (zod, valibot, arktype, ...), checked when an attempt
   * ends (a mismatch fails the attempt as `permanent`), or `typed<T>()`, checked by TypeScript
   * only. Types the handler's return value and `ctx.deps.<node>` of its dependents. Not part of
   * the built definition's data or hash.
   * @defaultValue none: the output is `unknown`
   */
  readonly output?: StandardSchemaV1;
  /**
   * Complete the node with a cached output of its kind when its cache key matches one produced
   * within `ttl`, without claiming or running it; otherwise run it and keep its output for others.
   * @defaultValue no caching
   */
  readonly cache?: CacheOptions;
}

/** Options of `fanOut`. */
export interface FanOutOptions<Names extends string = string> extends TaskOptions<Names> {
  /**
   * Each item task's output, as `task`'s `output`; the node's output is the list of them.
   * @defaultValue none: the item outputs are `unknown`
   */
  readonly output?: StandardSchemaV1;
  /** The upstream node whose output is the list; added to `dependsOn` when missing. */
  readonly from: NodeRef<Names>;
  /**
   * Most item tasks running (or available) at once.
   * @defaultValue no limit
   */
  readonly maxParallel?: number;
  /**
   * Most elements the list may have; a longer list discards the node with error kind `permanent`.
   * @defaultValue `MaxFanOutItems` (10,000)
   */
  readonly maxItems?: number;
}

/** Options of `waitSignal`. */
export interface WaitSignalOptions<Names extends string = string> extends NodeOptions<Names> {
  /** The signal name that completes the node. */
  readonly signal: string;
  /**
   * Longest wait; a lapse completes the node with `timedOut: true`.
   * @defaultValue no limit
   */
  readonly maxWait?: Duration;
}

/** Options of `waitAny`. */
export interface WaitAnyOptions<Names extends string = string> extends NodeOptions<Names> {
  /** The signal names, distinct, at least one; the first to arrive completes the node. */
  readonly signals: readonly string[];
  /**
   * Longest wait; a lapse completes the node with `timedOut: true`.
   * @defaultValue no limit
   */
  readonly maxWait?: Duration;
}

/** Options of `waitN`. */
export interface WaitNOptions<Names extends string = string> extends NodeOptions<Names> {
  /** The signal name whose arrivals are counted. */
  readonly signal: string;
  /** How many arrivals complete the node, at least 1. */
  readonly n: number;
  /**
   * Longest wait; a lapse completes the node with the payloads gathered so far.
   * @defaultValue no limit
   */
  readonly maxWait?: Duration;
}

/** Options of `waitTimer`. */
export interface WaitTimerOptions<Names extends string = string> extends NodeOptions<Names> {
  /** How long to wait once the node is reached. */
  readonly waitFor: Duration;
}

/** Options of `child`. */
export interface ChildOptions<Names extends string = string> extends NodeOptions<Names> {
  /**
   * The child workflow: its name, as registered on the worker and scheduler, or its built
   * definition, which types the node's output (the child's result) and has the parent's input
   * checked against the child's input schema at submit. Either way only the name is stored.
   */
  readonly workflow: string | WorkflowDefinition;
  /** The node of the child workflow whose output becomes this node's output. */
  readonly result?: string;
  /**
   * Longest wait for the child run; when it lapses the node is discarded.
   * @defaultValue no limit
   */
  readonly maxWait?: Duration;
}

/** Defaults for every `task` and `fanOut` node of the workflow that does not set its own. */
export interface WorkflowDefaultsOptions {
  /** @defaultValue `DefaultMaxAttempts` (3) */
  readonly maxAttempts?: number;
  /** @defaultValue no timeout */
  readonly timeout?: Duration;
  /** @defaultValue `DefaultBackoff` (1s, doubling, at most 10m, 20% jitter) */
  readonly backoff?: BackoffOptions;
}

/** Options of {@link workflow}. */
export interface WorkflowOptions {
  readonly defaults?: WorkflowDefaultsOptions;
  /**
   * The run input: a Standard Schema (zod, valibot, arktype, ...), which types `submit`'s input
   * and every handler's `ctx.input` and is validated by `submit` before anything is written, or
   * `typed<T>()`, checked by TypeScript only. Not part of the built definition's data or hash.
   * @defaultValue none: the input is `unknown` and not checked
   */
  readonly input?: StandardSchemaV1;
}
