import { describe, expect, it } from 'vitest';
import {
  isOperatorRetryTrigger,
  RUN_TRIGGERS,
  RunTrigger,
  STEP_TRIGGERS,
  StepTrigger,
} from './triggers.js';

describe('triggers', () => {
  it('are unique snake_case values', () => {
    for (const triggers of [STEP_TRIGGERS, RUN_TRIGGERS]) {
      expect(new Set(triggers).size).toBe(triggers.length);
      for (const trigger of triggers) expect(trigger).toMatch(/^[a-z]+(_[a-z]+)*$/);
    }
  });

  it('count a timeout as a retryable error rather than a trigger of its own', () => {
    expect(STEP_TRIGGERS.some((t) => t.includes('timeout'))).toBe(false);
    expect(StepTrigger.RetryableError).toBe('retryable_error');
  });

  it('recognise exactly the operator retries as able to leave a terminal state', () => {
    const retries = [...STEP_TRIGGERS, ...RUN_TRIGGERS].filter(isOperatorRetryTrigger);
    expect(new Set(retries)).toEqual(new Set(['operator_retry', 'operator_retry_reopen']));
    expect(isOperatorRetryTrigger(RunTrigger.OperatorRetry)).toBe(true);
    expect(isOperatorRetryTrigger(StepTrigger.Cancel)).toBe(false);
  });
});
