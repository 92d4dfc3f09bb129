import { describe, expect, it } from 'vitest';
import type { StepStatus } from '@cyclone/core';
import { describeFanOut, fanOutProgress } from './fan-out-progress.js';

const step = (over: Partial<StepStatus>): StepStatus =>
  ({
    node: 'pack',
    nodeType: 'item',
    state: 'pending',
    itemIndex: null,
    maxParallel: null,
    ...over,
  }) as StepStatus;

describe('fanOutProgress', () => {
  it('counts a fan-out node’s completed and running item tasks against its total and limit', () => {
    const steps = [
      step({ node: 'list', nodeType: 'task', state: 'completed' }),
      step({ nodeType: 'fan_out', maxParallel: 2 }),
      step({ itemIndex: 0, state: 'completed' }),
      step({ itemIndex: 1, state: 'running' }),
      step({ itemIndex: 2, state: 'available' }),
      step({ itemIndex: 3, state: 'pending' }),
    ];
    const progress = fanOutProgress(steps);
    expect([...progress.keys()]).toEqual(['pack']);
    expect(describeFanOut(progress.get('pack')!)).toBe('1/4 done, 1/2 running');
  });

  it('shows a node without a limit, and one not expanded yet', () => {
    expect(describeFanOut(fanOutProgress([step({ nodeType: 'fan_out' })]).get('pack')!)).toBe(
      '0/0 done, 0 running',
    );
  });
});
