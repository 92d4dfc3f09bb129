import type { StepState } from './states.js';

/**
 * Why a node has not moved, one value per cause the engine can be held by. Returned in
 * {@link NodeExplanation.reason}.
 */
export const ExplainReason = {
  /** Nothing holds it: a worker (or the engine's next settlement) moves it next. */
  Ready: 'ready',
  /** A worker holds its lease and the handler is executing. */
  Running: 'running',
  /** It is completed, discarded or cancelled; only an operator moves it again. */
  Terminal: 'terminal',
  /** Upstream nodes (or, for a fan-out node, its item tasks) have not completed. */
  Dependencies: 'dependencies',
  /** A signal wait: the signal has not arrived yet. */
  Signal: 'signal',
  /** A timer wait: the timer has not fired yet. */
  Timer: 'timer',
  /** A child node: its child run has not ended yet. */
  Child: 'child',
  /** An item task: its fan-out node's `maxParallel` places are all taken. */
  MaxParallel: 'max_parallel',
  /** The run is paused. */
  Paused: 'paused',
  /** An available step waiting out the backoff after a failed attempt. */
  Backoff: 'backoff',
  /** An available step scheduled for later (a delayed job, a snooze). */
  Scheduled: 'scheduled',
  /** An available step whose handler kind no live worker serves. */
  NoWorker: 'no_worker',
  /** An available step held back by its kind's concurrency cap (or its concurrency key's). */
  ConcurrencyCap: 'concurrency_cap',
  /** An available step held back by its kind's rate limit until its window has room. */
  RateLimit: 'rate_limit',
} as const;
/** An {@link ExplainReason} value. */
export type ExplainReason = (typeof ExplainReason)[keyof typeof ExplainReason];

/** Every explanation reason, in declaration order. */
export const EXPLAIN_REASONS: readonly ExplainReason[] = Object.freeze(
  Object.values(ExplainReason),
);

/**
 * Why a node is in its state and what would move it: the answer of `client.explain(runId, node)`.
 * Derived from the rows the engine acts on, read in one statement, by the database's clock.
 */
export interface NodeExplanation {
  /** The node's name; an item task is named `node[index]`. */
  readonly node: string;
  readonly state: StepState;
  /** A named sub-state (`AwaitingRetry`, `Retrying`, `Late`, `Crashed`, `TimedOut`). */
  readonly label?: string;
  readonly reason: ExplainReason;
  /** One sentence an operator can act on. */
  readonly message: string;
  /**
   * Upstream nodes not completed (`dependencies`), the signal names not yet received (`signal`),
   * the child run (`child`), or the item tasks holding the places (`max_parallel`).
   */
  readonly waitingOn?: string[];
  /** When it changes by itself: the end of a backoff, a timer, a max wait, a lease expiry. */
  readonly until?: Date;
  /** The worker holding the lease, when running. */
  readonly worker?: string;
}
