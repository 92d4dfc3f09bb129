import { shortDuration, type StepStatus } from '@cyclone/core';

export { shortDuration };

/**
 * What a waiting node waits for, in one line: the signal names (with a quorum's progress), the
 * timer or the child run, and the time left by the database clock. Undefined for a node that is not waiting.
 */
export function waitingFor(step: StepStatus): string | undefined {
  const left = step.waitRemainingMs === null ? '' : `, ${shortDuration(step.waitRemainingMs)} left`;
  if (step.state === 'waiting_timer') return `timer${left || ''}`;
  if (step.state === 'waiting_child') {
    return step.childRunId === null
      ? `child run (starting)${left}`
      : `child run ${step.childRunId}${left}`;
  }
  if (step.state !== 'waiting_signal') return undefined;
  const names = (step.waitSignals ?? []).join(' | ');
  const quorum =
    step.waitN !== null && step.waitN > 1 ? ` (${step.waitGathered}/${step.waitN})` : '';
  return `signal ${names}${quorum}${left}`;
}
