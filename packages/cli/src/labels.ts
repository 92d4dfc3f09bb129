import type { StepStatus } from '@cyclone/core';

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
