import type { BackoffPolicy, WorkflowDefinition } from '@cyclone/core';

/** A step row to insert at submit. */
export interface NewStep {
  readonly id: string;
  readonly node: string;
  readonly nodeType: string;
  readonly kind: string | null;
  readonly state: string;
  readonly dependsOn: readonly string[];
  readonly onDepFailure: string;
  readonly maxAttempts: number;
  readonly timeoutMs: number | null;
  readonly backoff: BackoffPolicy | null;
  readonly delayMs: number | null;
  /** An absolute time to become claimable at (wins over `delayMs`); kept as given. */
  readonly runAt?: Date | null;
  readonly waitSignals: readonly string[] | null;
  readonly waitN: number | null;
  readonly maxWaitMs: number | null;
  readonly waitForMs: number | null;
  readonly maxParallel: number | null;
  /** The key a per-key concurrency cap or rate limit counts the step by; null for none. */
  readonly concurrencyKey: string | null;
  /** Among claimable steps of the kind, higher is claimed first. */
  readonly priority: number;
  /** A task node with a result cache: its ttl; absent or null when the step is not cached. */
  readonly cacheTtlMs?: number | null;
  /** A cached step's key when the submission decides it (a key path); null: decided when ready. */
  readonly cacheKey?: string | null;
}

/** A run to insert at submit, with all of its steps. */
export interface NewRun {
  readonly id: string;
  readonly workflow: string;
  /** The definition (null for a standalone job), stored once per hash. */
  readonly definition: WorkflowDefinition | null;
  /** The run input, already encoded and validated as JSON text. */
  readonly inputJson: string;
  readonly idempotencyKey: string | null;
  readonly deadlineMs: number | null;
  readonly maxReclaims: number | null;
  readonly parentRunId: string | null;
  readonly parentStepId: string | null;
  /** The submitter's W3C trace context (`traceparent`, `tracestate`), or null. */
  readonly traceContext?: Readonly<Record<string, string>> | null;
  readonly steps: readonly NewStep[];
}

/** Run-level options of a submission. */
export interface NewRunOptions {
  readonly idempotencyKey?: string | null;
  readonly deadlineMs?: number | null;
  /** @defaultValue `DefaultMaxReclaims` (10); null also takes the default */
  readonly maxReclaims?: number | null;
  readonly parentRunId?: string | null;
  readonly parentStepId?: string | null;
  readonly traceContext?: Readonly<Record<string, string>> | null;
  /** The concurrency key of the run's steps whose node names no key path. */
  readonly concurrencyKey?: string | null;
  /** The priority of the run's steps whose node sets none. @defaultValue 0 */
  readonly priority?: number;
}

/** Options of a standalone job. */
export interface NewJobOptions extends NewRunOptions {
  readonly maxAttempts?: number;
  readonly timeoutMs?: number | null;
  readonly delayMs?: number | null;
  /** Claimable from this absolute time (the caller's Date is stored as is). */
  readonly runAt?: Date | null;
  readonly backoff?: BackoffPolicy | null;
}

/**
 * Standalone jobs of one kind enqueued together with the same options: the rows of `runOfJob`
 * for each, in a shape that is cheap to build and to send (one id and one encoded argument
 * list entry a job; everything else once). Built by `newJobs`.
 */
export interface NewJobs {
  readonly kind: string;
  /** Each job's run id, in order; the job's step has the same id (decision 302). */
  readonly runIds: readonly string[];
  /** Each job's arguments, already encoded and validated as JSON text, in the same order. */
  readonly argsJson: readonly string[];
  /**
   * The idempotency key: each job's own when `suffixKeys` is false (one job), else suffixed with
   * the job's position (`key:0`, `key:1`, ...). Null: none.
   */
  readonly idempotencyKey: string | null;
  readonly suffixKeys: boolean;
  /** The options every job of the call shares. */
  readonly options: SharedJobOptions;
}

/**
 * The options the jobs of one enqueue share: a job's own options but its key (see
 * {@link NewJobs.idempotencyKey}) and a parent (jobs enqueued by an application have none).
 */
export type SharedJobOptions = Omit<
  NewJobOptions,
  'idempotencyKey' | 'parentRunId' | 'parentStepId'
>;
