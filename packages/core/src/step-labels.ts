import { ErrorKind } from './error-kind.js';
import { StepState } from './states.js';
import type { StepEvent, StepStatus } from './status.js';

/**
 * Named sub-states: labels an operator sees beside a step's state (`cyclone` prints them, the
 * run view's `label`), derived from the step's columns when it is shown. They are never stored and
 * never drive a transition: the state does. This module holds their names and meanings, so that
 * every place that shows or documents a label uses the same words.
 *
 * @packageDocumentation
 */

/** The names of the derived sub-state labels, as shown. */
export const StepLabel = {
  /** A running attempt after the first. */
  Retrying: 'Retrying',
  /** An available step waiting out the backoff of a retryable failure. */
  AwaitingRetry: 'AwaitingRetry',
  /** An available step whose time has come, held back by its kind's concurrency cap or rate limit. */
  AwaitingResource: 'AwaitingResource',
  /** An available step well past its scheduled time: no worker has claimed it. */
  Late: 'Late',
  /** An available step whose lease expired and was reclaimed: its worker died. */
  Crashed: 'Crashed',
  /** A wait whose maximum wait lapsed. */
  TimedOut: 'TimedOut',
  /** A task that completed with an output from its kind's result cache, without running. */
  Cached: 'Cached',
} as const;
/** A {@link StepLabel} value. */
export type StepLabel = (typeof StepLabel)[keyof typeof StepLabel];

/** How long past its scheduled time an available step is before it is labelled `Late`. */
export const LateAfterMs = 15_000;

/** When a label applies: the states it is shown on and the condition on the step's columns. */
export interface StepLabelRule {
  readonly label: StepLabel;
  /** The step states the label can be shown on. */
  readonly states: readonly StepState[];
  /** The condition, in terms of `StepStatus` fields. */
  readonly when: string;
}

/**
 * Every label, in the order they are tested: the first that applies is shown, so an available
 * step that is both late and reclaimed shows `Late`.
 */
export const STEP_LABELS: readonly StepLabelRule[] = Object.freeze(
  [
    {
      label: StepLabel.Retrying,
      states: [StepState.Running],
      when: '`attempts > 0`: an earlier attempt ended (failed) and this one runs again',
    },
    {
      label: StepLabel.AwaitingRetry,
      states: [StepState.Available],
      when: '`scheduledAt` is in the future and `errorKind` is `retryable`: the backoff of a failed attempt',
    },
    {
      label: StepLabel.AwaitingResource,
      states: [StepState.Available],
      when: "`awaitingResource` is true: its time has come, but its kind's concurrency cap (or the cap of its concurrency key) is full, or its rate limit used up for now",
    },
    {
      label: StepLabel.Late,
      states: [StepState.Available],
      when: `\`scheduledAt\` is more than ${LateAfterMs / 1000} s in the past: no worker claimed it in time (no worker for its kind, or all busy)`,
    },
    {
      label: StepLabel.Crashed,
      states: [StepState.Available],
      when: '`reclaims > 0`: a lease expired and the recovery sweep took the step back',
    },
    {
      label: StepLabel.TimedOut,
      states: [StepState.Completed],
      when: '`timedOut` is true: a signal wait whose `maxWait` lapsed (it completes with `timedOut: true`)',
    },
    {
      label: StepLabel.Cached,
      states: [StepState.Completed],
      when: "`cached` is true: a task whose cache key matched an output of its kind within the entry's ttl, so it completed with that output without running",
    },
  ].map((rule) => Object.freeze({ ...rule, states: Object.freeze(rule.states) })),
);

/** The columns of a step that decide its label (a `StepStatus` has them all). */
export type LabelledStep = Pick<
  StepStatus,
  'state' | 'attempts' | 'scheduledAt' | 'errorKind' | 'reclaims' | 'timedOut'
> &
  Partial<Pick<StepStatus, 'awaitingResource' | 'cached'>>;

/**
 * The sub-state label of a step at `now` (milliseconds since the epoch), by the rules of
 * {@link STEP_LABELS} in their order (the first that applies), or undefined when none applies.
 * Pass the database's clock as `now` where it is known, so that `AwaitingRetry` and `Late` do not
 * depend on the reader's clock.
 */
export function stepLabel(step: LabelledStep, now: number = Date.now()): StepLabel | undefined {
  if (step.state === StepState.Running && step.attempts > 0) return StepLabel.Retrying;
  if (step.state === StepState.Available) {
    const dueIn = step.scheduledAt.getTime() - now;
    if (dueIn > 0 && step.errorKind === ErrorKind.Retryable) return StepLabel.AwaitingRetry;
    if (dueIn <= 0 && step.awaitingResource === true) return StepLabel.AwaitingResource;
    if (-dueIn > LateAfterMs) return StepLabel.Late;
    if (step.reclaims > 0) return StepLabel.Crashed;
  }
  if (step.timedOut) return StepLabel.TimedOut;
  if (step.cached === true) return StepLabel.Cached;
  return undefined;
}

/** The time an event made its step claimable: its `at`, plus the delay it set (a backoff). */
function claimableAt(event: StepEvent): number {
  const delay = event.detail?.delayMs;
  return event.at.getTime() + (typeof delay === 'number' ? delay : 0);
}

/**
 * The label of one event, knowing the event before it that made the same step available (if
 * any): `AwaitingRetry` for a retry scheduled after a failure, `Retrying` for a start after the
 * first attempt, `Late` for a start more than {@link LateAfterMs} after the step became
 * claimable, `Crashed` for a reclaimed lease, `TimedOut` for a lapsed wait. A step that was
 * claimable from its run's submission has no such event, so its first start is never called
 * `Late` here: the event log does not record a delayed job's time.
 */
function eventLabel(event: StepEvent, madeAvailable: StepEvent | undefined): StepLabel | undefined {
  switch (event.type) {
    case 'step_retry_scheduled':
      return event.to === StepState.Available ? StepLabel.AwaitingRetry : undefined;
    case 'step_started': {
      const attempt = event.detail?.attempt;
      if (typeof attempt === 'number' && attempt > 1) return StepLabel.Retrying;
      if (madeAvailable && event.at.getTime() - claimableAt(madeAvailable) > LateAfterMs) {
        return StepLabel.Late;
      }
      return undefined;
    }
    case 'step_reclaimed':
      return StepLabel.Crashed;
    case 'wait_lapsed':
      return StepLabel.TimedOut;
    case 'step_cached':
      return StepLabel.Cached;
    default:
      return undefined;
  }
}

/**
 * The sub-state label of each event of a run's history (given in order), or undefined: the
 * label the event's step had from that event on.
 */
export function eventLabels(events: readonly StepEvent[]): (StepLabel | undefined)[] {
  const madeAvailable = new Map<string, StepEvent>();
  return events.map((event) => {
    const label = eventLabel(event, event.stepId ? madeAvailable.get(event.stepId) : undefined);
    if (event.stepId && event.to === StepState.Available) madeAvailable.set(event.stepId, event);
    return label;
  });
}
