import { describe, expect, it } from 'vitest';
import { STEP_STATES } from './states.js';
import {
  LateAfterMs,
  STEP_LABELS,
  StepLabel,
  stepLabel,
  type LabelledStep,
} from './step-labels.js';

describe('STEP_LABELS', () => {
  it('describes every label once, each on real step states', () => {
    expect(STEP_LABELS.map((rule) => rule.label)).toEqual(Object.values(StepLabel));
    for (const rule of STEP_LABELS) {
      expect(rule.states.length).toBeGreaterThan(0);
      for (const state of rule.states) expect(STEP_STATES).toContain(state);
      expect(rule.when).not.toBe('');
    }
  });

  it('is frozen, so no caller can change what every other one shows', () => {
    expect(Object.isFrozen(STEP_LABELS)).toBe(true);
    expect(Object.isFrozen(STEP_LABELS[0])).toBe(true);
    expect(Object.isFrozen(STEP_LABELS[0]!.states)).toBe(true);
  });
});

describe('stepLabel', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  const step = (over: Partial<LabelledStep>): LabelledStep => ({
    state: 'available',
    attempts: 0,
    scheduledAt: new Date(now),
    errorKind: null,
    reclaims: 0,
    timedOut: false,
    ...over,
  });

  it('labels each rule of STEP_LABELS, and nothing when none applies', () => {
    expect(stepLabel(step({ state: 'running', attempts: 1 }), now)).toBe('Retrying');
    expect(stepLabel(step({ state: 'running' }), now)).toBeUndefined();
    const backoff = step({ scheduledAt: new Date(now + 5_000), errorKind: 'retryable' });
    expect(stepLabel(backoff, now)).toBe('AwaitingRetry');
    expect(stepLabel(step({ scheduledAt: new Date(now - LateAfterMs - 1) }), now)).toBe('Late');
    expect(stepLabel(step({ scheduledAt: new Date(now - LateAfterMs) }), now)).toBeUndefined();
    expect(stepLabel(step({ reclaims: 1 }), now)).toBe('Crashed');
    expect(stepLabel(step({ state: 'completed', timedOut: true }), now)).toBe('TimedOut');
    expect(stepLabel(step({}), now)).toBeUndefined();
  });

  it('shows the first rule that applies: a late, reclaimed step is Late', () => {
    const late = step({ scheduledAt: new Date(now - LateAfterMs - 1), reclaims: 2 });
    expect(stepLabel(late, now)).toBe('Late');
  });
});
