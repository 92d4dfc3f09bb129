import { describe, expect, it } from 'vitest';
import { STEP_STATES } from './states.js';
import { STEP_LABELS, StepLabel } from './step-labels.js';

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
