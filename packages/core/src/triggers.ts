/**
 * The named causes of state changes. A trigger says *why* a step or run moves; the transition table
 * ({@link STEP_TRANSITIONS}, {@link RUN_TRANSITIONS}) says which moves each trigger may make. Every
 * write path names its trigger, so the rule function can refuse a move made for the wrong reason.
 *
 * Values are snake_case and stable: they may appear in events, logs and rejection messages.
 *
 * @packageDocumentation
 */

/** Why a step (a node's step, or a fan-out item task) changes state. */
export const StepTrigger = {
  /** `submit` / `enqueue` inserted the step together with its run. */
  Submit: 'submit',
  /** The last upstream dependency completed, so the step leaves `pending` (to `available` or a wait state). */
  Promote: 'promote',
  /** A worker claimed the step (`FOR UPDATE SKIP LOCKED`) and holds its lease. */
  Claim: 'claim',
  /** The handler returned; its output is stored. */
  Complete: 'complete',
  /**
   * The handler threw an ordinary error, or its timeout fired, with attempts left: the step becomes
   * claimable again after the backoff. A timeout is this trigger, not a trigger of its own.
   */
  RetryableError: 'retryable_error',
  /** The handler threw `snooze(d)`: the same attempt runs again after `d`; no attempt is charged. */
  Snooze: 'snooze',
  /**
   * The step's input could not be read (a database error, not bad data): the step goes back at the
   * same attempt ordinal (error kind `transient`).
   */
  TransientError: 'transient_error',
  /**
   * Cyclone-specific: a worker that shuts down gracefully gives back an in-flight step. No attempt is
   * charged and `reclaims` is not incremented, because nothing crashed.
   */
  Release: 'release',
  /** The lease expired and the recovery sweep took the step back; `reclaims` is incremented, no attempt is charged. */
  Reclaim: 'reclaim',
  /** The handler threw `permanent(err)` or its output exceeded the payload limit: discard now. */
  PermanentError: 'permanent_error',
  /** A retryable failure (or timeout) on the last attempt (`attempt == maxAttempts`): discard. */
  AttemptsExhausted: 'attempts_exhausted',
  /** The lease expired again after `maxReclaims` reclaims: the sweep dead-letters the step. */
  ReclaimLimit: 'reclaim_limit',
  /** The run's `runDeadline` elapsed: the deadline scanner discards the step (error kind `deadline`). */
  RunDeadline: 'run_deadline',
  /** A signal wait got its signal (for `waitN`, its quorum) and completes with the payload(s). */
  SignalConsumed: 'signal_consumed',
  /**
   * The `maxWait` bound lapsed. A signal wait completes with `timedOut: true` (not a re-queue); a child
   * node is discarded with error kind `permanent`.
   */
  WaitLapsed: 'wait_lapsed',
  /** A timer wait's time came. */
  TimerFired: 'timer_fired',
  /** Another node's discard failed the run, so every other non-terminal step is cancelled. */
  FailFast: 'fail_fast',
  /** A dependency was discarded and this node declared `OnDepFailure.CancelBranch`. */
  CancelBranch: 'cancel_branch',
  /** The operator cancelled the run (`client.cancel`). */
  Cancel: 'cancel',
  /**
   * The operator retried a discarded node (`client.retry` / `client.retryAll`): `attempts` is kept,
   * `maxAttempts` raised, `reclaims` reset.
   */
  OperatorRetry: 'operator_retry',
  /**
   * Cyclone decision: the same operator retry also reopens (to `pending`) the steps that fail-fast or
   * branch cancellation cancelled because of the retried discard, so the reopened run can complete.
   */
  OperatorRetryReopen: 'operator_retry_reopen',
  /** The operator paused the run (`run.pause()`). */
  Pause: 'pause',
  /** The operator resumed the run (`run.resume()`). */
  Resume: 'resume',
  /** A child node's child run completed with the node's result. */
  ChildCompleted: 'child_completed',
  /**
   * A child node's child run failed, was cancelled, or completed without a result for the node, or
   * the child workflow did not build. Error kind `permanent`.
   */
  ChildFailed: 'child_failed',
  /** The engine expanded a fan-out node and inserted its item tasks. */
  FanOutExpand: 'fan_out_expand',
  /** An item task of the same fan-out node finished, so a waiting item task gets the free place. */
  FanOutSlotFreed: 'fan_out_slot_freed',
  /** A fan-out node's last item task completed (or its list was empty): the node completes. */
  FanOutCompleted: 'fan_out_completed',
  /** A fan-out node failed: an item task was discarded, or a fan-out limit or input check failed. */
  FanOutFailed: 'fan_out_failed',
  /** The item task's fan-out node was discarded; every item must succeed, so the others stop. */
  FanOutItemCancelled: 'fan_out_item_cancelled',
  /**
   * Cyclone-specific: a task node with a result cache became ready and its cache key matched an
   * entry of its kind within the entry's time to live, so it completes with that output without
   * being claimed or executed.
   */
  CacheHit: 'cache_hit',
  /**
   * Cyclone decision: an operator moved one node to `completed`, `discarded` or `cancelled` by hand
   * (`client.forceStep`); its event's detail says whether the move was forced and why.
   */
  Force: 'force',
} as const;
/** A {@link StepTrigger} value. */
export type StepTrigger = (typeof StepTrigger)[keyof typeof StepTrigger];

/** Why a run changes state. */
export const RunTrigger = {
  /** `submit` / `enqueue` inserted the run; a run starts `running`. */
  Submit: 'submit',
  /** Every node is terminal and every discard was contained by `CancelBranch`. */
  Complete: 'complete',
  /** A step was discarded and `CancelBranch` did not contain its downstream: the default `FailRun` policy. */
  DiscardUncontained: 'discard_uncontained',
  /** The run's `runDeadline` elapsed and the deadline scanner stopped it. */
  RunDeadline: 'run_deadline',
  /** The operator cancelled the run (`client.cancel`). */
  Cancel: 'cancel',
  /** The operator retried a failed run's discarded node(s) (`client.retry` / `client.retryAll`). */
  OperatorRetry: 'operator_retry',
  /** The operator paused the run (`run.pause()`). */
  Pause: 'pause',
  /** The operator resumed the run (`run.resume()`). */
  Resume: 'resume',
} as const;
/** A {@link RunTrigger} value. */
export type RunTrigger = (typeof RunTrigger)[keyof typeof RunTrigger];

/** Every step trigger, in declaration order. */
export const STEP_TRIGGERS: readonly StepTrigger[] = Object.freeze(Object.values(StepTrigger));
/** Every run trigger, in declaration order. */
export const RUN_TRIGGERS: readonly RunTrigger[] = Object.freeze(Object.values(RunTrigger));

const OPERATOR_RETRY_TRIGGERS: ReadonlySet<string> = new Set([
  StepTrigger.OperatorRetry,
  StepTrigger.OperatorRetryReopen,
  RunTrigger.OperatorRetry,
]);

/**
 * Whether a trigger is an operator retry: the only kind of trigger that may move a step or a run out
 * of a terminal state.
 */
export function isOperatorRetryTrigger(trigger: string): boolean {
  return OPERATOR_RETRY_TRIGGERS.has(trigger);
}
