import { StepState } from './states.js';

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
  /** An available step well past its scheduled time: no worker has claimed it. */
  Late: 'Late',
  /** An available step whose lease expired and was reclaimed: its worker died. */
  Crashed: 'Crashed',
  /** A wait whose maximum wait lapsed. */
  TimedOut: 'TimedOut',
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
  ].map((rule) => Object.freeze({ ...rule, states: Object.freeze(rule.states) })),
);
