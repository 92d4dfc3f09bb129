import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, EventType } from './event-types.js';
import { StepTrigger } from './triggers.js';

describe('EventType', () => {
  it('has snake_case values, each once', () => {
    for (const type of EVENT_TYPES) expect(type).toMatch(/^[a-z]+(_[a-z]+)+$/);
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
  });

  it('names a cancelled step after the trigger that cancelled it', () => {
    expect(EventType.StepCancelledFailFast).toBe(`step_cancelled_${StepTrigger.FailFast}`);
    expect(EventType.StepCancelledCancelBranch).toBe(`step_cancelled_${StepTrigger.CancelBranch}`);
    expect(EventType.StepCancelledCancel).toBe(`step_cancelled_${StepTrigger.Cancel}`);
    expect(EventType.StepCancelledForce).toBe(`step_cancelled_${StepTrigger.Force}`);
    expect(EventType.StepCancelledFanOutItem).toBe(
      `step_cancelled_${StepTrigger.FanOutItemCancelled}`,
    );
  });
});
