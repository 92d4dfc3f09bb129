import type { StepStatus } from '@cyclone/core';

/** A duration in milliseconds as a short human string (`1h59m`, `42s`, `350ms`). */
export function shortDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = Math.floor(ms / 1000);
  const parts: [number, string][] = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor((s % 86_400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'm'],
    [s % 60, 's'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  return parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join('');
}

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
