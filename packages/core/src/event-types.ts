/**
 * The types of the events a run's history records (`StepEvent.type`): what happened, in words an
 * operator reads. With its `(from, to, trigger)` every step and run event is a row of the
 * transition table; the type names the row for people. Values are snake_case and stable.
 *
 * @packageDocumentation
 */

/** What an event of a run's history says happened. */
export const EventType = {
  /** The run was inserted with its steps (told by the run row). */
  RunSubmitted: 'run_submitted',
  /** The run's last open step completed (told by the run row). */
  RunCompleted: 'run_completed',
  /** An uncontained discard or the run deadline failed the run. */
  RunFailed: 'run_failed',
  /** An operator cancelled the run. */
  RunCancelled: 'run_cancelled',
  RunPaused: 'run_paused',
  RunResumed: 'run_resumed',
  /** An operator's retry reopened a failed run. */
  RunRetried: 'run_retried',
  /** A task's dependencies completed: it is claimable. */
  StepReady: 'step_ready',
  /** A wait or child node's dependencies completed: it waits. */
  StepWaiting: 'step_waiting',
  /** A worker claimed the step. */
  StepStarted: 'step_started',
  /** The handler returned; its output is stored. */
  StepCompleted: 'step_completed',
  /** A cached task completed with an output from the result cache, without running. */
  StepCached: 'step_cached',
  /** A retryable failure with attempts left: claimable again after the backoff. */
  StepRetryScheduled: 'step_retry_scheduled',
  /** The handler threw `snooze(d)`. */
  StepSnoozed: 'step_snoozed',
  /** A worker shutting down gave the step back. */
  StepReleased: 'step_released',
  /** The recovery sweep took back a step whose lease expired. */
  StepReclaimed: 'step_reclaimed',
  /** The step was discarded (permanent error, attempts exhausted, reclaim limit, run deadline, ...). */
  StepDiscarded: 'step_discarded',
  StepPaused: 'step_paused',
  StepResumed: 'step_resumed',
  /** An operator retried the discarded step. */
  StepRetried: 'step_retried',
  /** An operator's retry reopened a step that a discard had cancelled. */
  StepReopened: 'step_reopened',
  /** Cancelled because another node's discard failed the run. */
  StepCancelledFailFast: 'step_cancelled_fail_fast',
  /** Cancelled because a dependency was discarded and the node declared `CancelBranch`. */
  StepCancelledCancelBranch: 'step_cancelled_cancel_branch',
  /** Cancelled with its run by an operator. */
  StepCancelledCancel: 'step_cancelled_cancel',
  /** An item task cancelled because its fan-out node was discarded. */
  StepCancelledFanOutItem: 'step_cancelled_fan_out_item_cancelled',
  /** An operator cancelled the node by hand (`client.forceStep`); its detail holds the reason. */
  StepCancelledForce: 'step_cancelled_force',
  /** A signal wait got its signal (or its quorum). */
  SignalConsumed: 'signal_consumed',
  /** A wait's `maxWait` lapsed. */
  WaitLapsed: 'wait_lapsed',
  /** A timer's time came. */
  TimerFired: 'timer_fired',
  /** A child node completed with its child run's result. */
  ChildCompleted: 'child_completed',
  /** A fan-out node's expansion inserted an item task. */
  ItemInserted: 'item_inserted',
  /** A fan-out node completed with its items' outputs. */
  FanOutCompleted: 'fan_out_completed',
} as const;

/** The type of an event of a run's history. */
export type EventType = (typeof EventType)[keyof typeof EventType];

/** Every event type, for checks that must cover them all. */
export const EVENT_TYPES: readonly EventType[] = Object.freeze(Object.values(EventType));
