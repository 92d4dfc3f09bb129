import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TransitionRejectedError } from './errors.js';
import {
  allowedRunFrom,
  allowedStepFrom,
  insertedItemState,
  insertedStepState,
  proposeRun,
  proposeStep,
  runChange,
  stepChange,
} from './propose.js';
import {
  isTerminalRun,
  isTerminalStep,
  RUN_STATES,
  STEP_STATES,
  type RunState,
  type StepState,
} from './states.js';
import { NODE_TYPES, RUN_TRANSITIONS, STEP_TRANSITIONS, type NodeType } from './transitions.js';
import { isOperatorRetryTrigger, RUN_TRIGGERS, STEP_TRIGGERS } from './triggers.js';

describe('allowedStepFrom and allowedRunFrom', () => {
  it('give the from-states of a trigger in declaration order, without insertion', () => {
    expect(allowedStepFrom('claim', 'running')).toEqual(['available']);
    expect(allowedStepFrom('submit', 'pending')).toEqual([]);
    expect(allowedStepFrom('cancel', 'cancelled')).toEqual([
      'pending',
      'available',
      'running',
      'waiting_signal',
      'waiting_timer',
      'waiting_child',
      'paused',
    ]);
    expect(allowedStepFrom('resume', 'waiting_child', 'child')).toEqual(['paused']);
    expect(allowedRunFrom('cancel', 'cancelled')).toEqual(['running', 'paused']);
    expect(allowedRunFrom('complete', 'completed')).toEqual(['running', 'paused']);
  });

  it('let the deadline scanner discard every non-terminal step except a paused one', () => {
    expect(allowedStepFrom('run_deadline', 'discarded')).toEqual(
      STEP_STATES.filter((s) => !isTerminalStep(s) && s !== 'paused'),
    );
  });

  it('narrow by node type', () => {
    expect(allowedStepFrom('cancel_branch', 'cancelled', 'item')).toEqual([]);
    expect(allowedStepFrom('fan_out_item_cancelled', 'cancelled', 'item')).toEqual([
      'pending',
      'available',
      'running',
      'paused',
    ]);
  });

  it('agree with proposeStep for every state, trigger, target and node type', () => {
    for (const nodeType of [undefined, ...NODE_TYPES]) {
      for (const trigger of STEP_TRIGGERS) {
        for (const to of STEP_STATES) {
          const allowed = allowedStepFrom(trigger, to, nodeType);
          for (const from of STEP_STATES) {
            expect(proposeStep(from, to, trigger, nodeType).accepted).toBe(allowed.includes(from));
          }
        }
      }
    }
  });

  it('agree with proposeRun for every state, trigger and target', () => {
    for (const trigger of RUN_TRIGGERS) {
      for (const to of RUN_STATES) {
        const allowed = allowedRunFrom(trigger, to);
        for (const from of RUN_STATES) {
          expect(proposeRun(from, to, trigger).accepted).toBe(allowed.includes(from));
        }
      }
    }
  });
});

describe('stepChange and runChange', () => {
  it('build a frozen change carrying its allowed from-states', () => {
    const reclaim = stepChange('reclaim', 'available');
    expect(reclaim).toEqual({
      entity: 'step',
      trigger: 'reclaim',
      to: 'available',
      from: ['running'],
    });
    expect(Object.isFrozen(reclaim)).toBe(true);
    expect(Object.isFrozen(reclaim.from)).toBe(true);
    expect(stepChange('resume', 'available', 'item')).toMatchObject({
      nodeType: 'item',
      from: ['paused'],
    });
    expect(runChange('resume', 'running')).toEqual({
      entity: 'run',
      trigger: 'resume',
      to: 'running',
      from: ['paused'],
    });
  });

  it('refuse at construction a change the table does not have', () => {
    expect(() => stepChange('claim', 'completed')).toThrow(TransitionRejectedError);
    expect(() => stepChange('claim', 'running', 'child')).toThrow(/child node/);
    expect(() => stepChange('submit', 'pending')).toThrow(
      /no step transition reaches pending by submit/,
    );
    expect(() => runChange('operator_retry', 'completed')).toThrow(TransitionRejectedError);
  });
});

describe('insertedStepState and insertedItemState', () => {
  it('insert a node with dependencies as pending, and a fan-out node always as pending', () => {
    expect(insertedStepState({ nodeType: 'task', hasDependencies: true })).toBe('pending');
    expect(insertedStepState({ nodeType: 'child', hasDependencies: true })).toBe('pending');
    expect(insertedStepState({ nodeType: 'fan_out', hasDependencies: false })).toBe('pending');
  });

  it('insert a node without dependencies in the state its promotion would give', () => {
    expect(insertedStepState({ nodeType: 'task', hasDependencies: false })).toBe('available');
    expect(insertedStepState({ nodeType: 'child', hasDependencies: false })).toBe('waiting_child');
    expect(insertedStepState({ nodeType: 'wait_n', hasDependencies: false })).toBe(
      'waiting_signal',
    );
    expect(insertedStepState({ nodeType: 'wait_timer', hasDependencies: false })).toBe(
      'waiting_timer',
    );
  });

  it('insert item tasks available within the limit, paused in a paused run, pending beyond it', () => {
    expect(insertedItemState({ withinLimit: true, runPaused: false })).toBe('available');
    expect(insertedItemState({ withinLimit: true, runPaused: true })).toBe('paused');
    expect(insertedItemState({ withinLimit: false, runPaused: true })).toBe('pending');
  });
});

describe('random sequences of triggers', () => {
  const stepMove = fc.record({
    trigger: fc.constantFrom(...STEP_TRIGGERS),
    to: fc.constantFrom(...STEP_STATES),
    // Half the moves follow a row that leaves the current state, so walks reach terminal states.
    followRow: fc.boolean(),
    pick: fc.nat(),
  });

  it('never move a terminal step except through an operator retry row', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<StepState | null>(null, ...STEP_STATES),
        fc.option(fc.constantFrom<NodeType>(...NODE_TYPES), { nil: undefined }),
        fc.array(stepMove, { maxLength: 60 }),
        (start, nodeType, moves) => {
          let state = start;
          for (const move of moves) {
            const leaving = STEP_TRANSITIONS.filter(
              (r) =>
                r.from === state && (nodeType === undefined || r.nodeTypes?.includes(nodeType)),
            );
            const row = move.followRow
              ? leaving[move.pick % Math.max(leaving.length, 1)]
              : undefined;
            const to = row?.to ?? move.to;
            const trigger = row?.trigger ?? move.trigger;
            const proposal = proposeStep(state, to, trigger, nodeType);
            const terminal = state !== null && isTerminalStep(state);
            if (proposal.accepted) {
              expect(proposal.row.from).toBe(state);
              if (terminal) expect(isOperatorRetryTrigger(proposal.row.trigger)).toBe(true);
              state = to;
            } else if (terminal) {
              expect(proposal.reason).toBe('terminal');
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never move a terminal run except through an operator retry row', () => {
    const runMove = fc.record({
      trigger: fc.constantFrom(...RUN_TRIGGERS),
      to: fc.constantFrom(...RUN_STATES),
      followRow: fc.boolean(),
      pick: fc.nat(),
    });
    fc.assert(
      fc.property(
        fc.constantFrom<RunState | null>(null, ...RUN_STATES),
        fc.array(runMove, { maxLength: 40 }),
        (start, moves) => {
          let state = start;
          for (const move of moves) {
            const leaving = RUN_TRANSITIONS.filter((r) => r.from === state);
            const row = move.followRow
              ? leaving[move.pick % Math.max(leaving.length, 1)]
              : undefined;
            const to = row?.to ?? move.to;
            const trigger = row?.trigger ?? move.trigger;
            const proposal = proposeRun(state, to, trigger);
            const terminal = state !== null && isTerminalRun(state);
            if (proposal.accepted) {
              if (terminal) expect(proposal.row.trigger).toBe('operator_retry');
              state = to;
            } else if (terminal) {
              expect(proposal.reason).toBe('terminal');
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
