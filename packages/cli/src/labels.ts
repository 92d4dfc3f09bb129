import type { StepEvent, StepStatus } from '@cyclone/core';

/**
 * Derived sub-state labels for operators (adopted from the sibling engine's named sub-states):
 * `Retrying` for a running attempt after the first, `AwaitingRetry` for an available step waiting
 * out its backoff, `Late` for an available step well past its time, `Crashed` for a step whose
 * lease was reclaimed, `TimedOut` for a lapsed wait. They are never stored: the state is.
 */
export function stepLabel(step: StepStatus, now = Date.now()): string | undefined {
  if (step.state === 'running' && step.attempts > 0) return 'Retrying';
  if (step.state === 'available') {
    if (step.scheduledAt.getTime() > now && step.errorKind === 'retryable') return 'AwaitingRetry';
    if (now - step.scheduledAt.getTime() > 15_000) return 'Late';
    if (step.reclaims > 0) return 'Crashed';
  }
  if (step.timedOut) return 'TimedOut';
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
 * first attempt, `Late` for a start over 15 s after the step became claimable, `Crashed` for a
 * reclaimed lease, `TimedOut` for a lapsed wait. A step that was claimable from its run's
 * submission has no such event, so its first start is never called `Late` here: the event log
 * does not record a delayed job's time.
 */
function eventLabel(event: StepEvent, madeAvailable: StepEvent | undefined): string | undefined {
  switch (event.type) {
    case 'step_retry_scheduled':
      return event.to === 'available' ? 'AwaitingRetry' : undefined;
    case 'step_started': {
      const attempt = event.detail?.attempt;
      if (typeof attempt === 'number' && attempt > 1) return 'Retrying';
      if (madeAvailable && event.at.getTime() - claimableAt(madeAvailable) > 15_000) return 'Late';
      return undefined;
    }
    case 'step_reclaimed':
      return 'Crashed';
    case 'wait_lapsed':
      return 'TimedOut';
    default:
      return undefined;
  }
}

/** The sub-state label of each event of a run's history (in order), or undefined. */
export function eventLabels(events: readonly StepEvent[]): (string | undefined)[] {
  const available = new Map<string, StepEvent>();
  return events.map((event) => {
    const label = eventLabel(event, event.stepId ? available.get(event.stepId) : undefined);
    if (event.stepId && event.to === 'available') available.set(event.stepId, event);
    return label;
  });
}
