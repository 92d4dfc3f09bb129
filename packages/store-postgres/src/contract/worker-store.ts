import type pg from 'pg';
import type { BackoffPolicy, ErrorKind, WorkflowDefinition } from '@cyclone/core';
import type { Queryable } from './queryable.js';
import type { SchemaCheck } from './schema-check.js';

/** What {@link WorkerStore.claim} needs. */
export interface ClaimRequest {
  /** Handler kinds the worker serves; only steps of these kinds are claimed. */
  readonly kinds: readonly string[];
  /** Most steps to claim in this call. */
  readonly limit: number;
  /** The claiming worker's id, recorded on the step and its `step_started` event. */
  readonly workerId: string;
  /** How long the claim holds without a heartbeat. */
  readonly leaseMs: number;
  /**
   * Most steps of kinds under fair share to claim in this call (default: `limit`). They come keys
   * in turn, in the turn's order, which a worker starts them in. A worker passes its free slots
   * plus a short local queue (a few steps a slot while handlers are quick), so a key that arrives
   * late waits behind few claimed steps of the others (decision 385).
   */
  readonly fairLimit?: number;
}

/** A step a worker now holds, with everything its handler needs. */
export interface ClaimedStep {
  readonly id: string;
  readonly runId: string;
  readonly node: string;
  readonly nodeType: string;
  readonly kind: string;
  /** Attempts ended before this one; this attempt is `attempts + 1`. */
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly reclaims: number;
  readonly timeoutMs: number | null;
  readonly backoff: BackoffPolicy | null;
  /** The fence of every later write about this claim. */
  readonly claimToken: string;
  readonly leaseExpiresAt: Date;
  readonly workflow: string;
  readonly input: unknown;
  readonly deps: Readonly<Record<string, unknown>>;
  readonly item: unknown;
  readonly itemIndex: number | null;
  /** The W3C trace context the run was submitted under (`traceparent`, `tracestate`), or null. */
  readonly traceContext: Readonly<Record<string, string>> | null;
  /** How long the step had been claimable when claimed, in ms (the database's clock). */
  readonly queueWaitMs: number;
  /**
   * Whether the step is a standalone job's (a run of one step, enqueued by kind): its completion
   * ends its run and makes no other step claimable. A workflow's step may (its dependents).
   */
  readonly standalone: boolean;
  /** Whether it was claimed under fair share (its kind's keys in turn). */
  readonly fairShare?: boolean;
}

/** Where a worker runs, as the operators' overview shows it. */
export interface WorkerDetails {
  readonly host: string;
  readonly pid: number;
  /** How many steps it runs at once. */
  readonly concurrency: number;
}

/** What a worker counted for one kind since its last flush. */
export interface KindMinuteCounts {
  readonly kind: string;
  /** Successes recorded. */
  readonly completed: number;
  /** Failures recorded (retried or discarded). */
  readonly failed: number;
  /** Queue waits of the steps claimed, in core's `WaitBucketCount` log buckets (`waitBucketOf`). */
  readonly waitBuckets: readonly number[];
}

/** A held step: the pair every fenced write is checked against. */
export interface HeldStep {
  readonly stepId: string;
  readonly claimToken: string;
}

/** A handler's success, ready to record. */
export interface Completion extends HeldStep {
  /** The output as JSON text, already validated. */
  readonly outputJson: string;
}

/** What a handler's transactional work gives back: its value, and the step's output as JSON text. */
export interface TransactionalOutput<T> {
  readonly value: T;
  /** The output as JSON text, already validated. */
  readonly outputJson: string;
}

/** A handler's work inside a transactional completion, on the transaction's client (inside `BEGIN`). */
export type TransactionalWork<T> = (tx: pg.PoolClient) => Promise<TransactionalOutput<T>>;

/**
 * How a transactional completion ended: committed together with the work's writes (`value` is
 * what the work gave), or refused by the claim's fence and rolled back, the work's writes with it.
 */
export type TransactionalCompletion<T> =
  { readonly completed: true; readonly value: T } | { readonly completed: false };

/**
 * A completion written inside the caller's transaction: whether the fence accepted it, and the runs
 * it left in the settlement outbox, to settle once that transaction committed
 * ({@link WorkerStore.settleCommitted}).
 */
export interface CompletionWithin {
  readonly accepted: boolean;
  readonly followUps: readonly string[];
}

/** A handler's failure, ready to record. */
export interface Failure extends HeldStep {
  /** `retryable` (thrown error, timeout), `permanent` (`permanent()`, oversize output) or `transient`. */
  readonly errorKind:
    typeof ErrorKind.Retryable | typeof ErrorKind.Permanent | typeof ErrorKind.Transient;
  readonly error: string;
  readonly panicStack: string | null;
  /** Attempts ended before the failed one, and the limit, as claimed. */
  readonly attempts: number;
  readonly maxAttempts: number;
  /** Backoff before the next attempt when the failure is retried. */
  readonly retryDelayMs: number;
}

/** What became of a recorded failure; `fenced` means the claim had moved on and nothing was written. */
export type FailureOutcome = 'retried' | 'discarded' | 'fenced';

/**
 * What a worker needs from the database: claim steps, record their outcomes fenced by the claim,
 * keep leases alive, and say which kinds it serves. Every write moves a step by one of core's
 * transitions and commits together with its events.
 */
export interface WorkerStore extends SchemaCheck {
  /** Claims available steps of the given kinds whose time has come, oldest first. */
  claim(request: ClaimRequest): Promise<ClaimedStep[]>;
  /**
   * Records handler successes (and everything they make necessary: the run's completion, the
   * promotion of dependents) atomically, marking in the same statement any run that needs more
   * settling, which then follows (or, after a crash, `MaintenanceStore.settlePending`). Returns the
   * ids whose completion was accepted; the others were fenced out and nothing of them was written.
   */
  complete(completions: readonly Completion[]): Promise<Set<string>>;
  /**
   * Runs `work` inside a transaction (on the store's transaction pool, see `transactionPool`), then
   * records the step's completion with the output `work` gives in that same transaction, fenced by
   * the claim like {@link complete}, and commits both or neither; then settles what the completion
   * left to settle. A fence that refuses rolls everything back (`completed: false`). What `work`
   * throws rolls back and reaches the caller unchanged; the store's own errors are typed as
   * everywhere. Never run again on a conflict: `work` is the application's.
   */
  completeInTransaction<T>(
    held: HeldStep,
    work: TransactionalWork<T>,
  ): Promise<TransactionalCompletion<T>>;
  /**
   * Records one completion inside a transaction the caller opened and will commit (a client with
   * `BEGIN` issued), fenced by the claim, with the same statement as {@link complete}. Nothing is
   * settled: the caller passes `followUps` to {@link settleCommitted} once it committed.
   */
  completeWithin(tx: Queryable, completion: Completion): Promise<CompletionWithin>;
  /**
   * Settles runs a completion inside a caller's transaction left in the settlement outbox, once
   * that transaction committed. Never rejects: a run it cannot settle now keeps its marker for the
   * `settle-pending` scanner.
   */
  settleCommitted(runIds: readonly string[]): Promise<void>;
  /** Records a handler failure: retried after its backoff, or discarded with the run settled. */
  fail(failure: Failure): Promise<FailureOutcome>;
  /** Delays a running step without charging an attempt (`snooze(d)`); false when fenced out. */
  snooze(stepId: string, claimToken: string, delayMs: number): Promise<boolean>;
  /** Gives a running step back without charging an attempt (graceful shutdown); false when fenced out. */
  release(stepId: string, claimToken: string): Promise<boolean>;
  /** Extends the leases of held steps; returns the ids still held (the others were lost). */
  heartbeat(held: readonly HeldStep[], leaseMs: number): Promise<Set<string>>;
  /**
   * Registers (or refreshes) a live worker and the kinds it handles, with where it runs (shown by
   * the operators' overview).
   */
  registerWorker(
    workerId: string,
    kinds: readonly string[],
    details?: WorkerDetails,
  ): Promise<void>;
  /**
   * Adds what a worker counted since its last flush to the current minute's rows of
   * `cyclone_stats_minutes` (database clock), one upsert for all kinds. Nothing is sent for an
   * empty list.
   */
  addStatsMinutes(counts: readonly KindMinuteCounts[]): Promise<void>;
  /** Forgets a stopped worker. */
  deregisterWorker(workerId: string): Promise<void>;
  /**
   * Stores workflow definitions by name and hash (the newest registration of a name wins), so that
   * any process can start them as child runs.
   */
  registerWorkflows(definitions: readonly WorkflowDefinition[]): Promise<void>;
}
