import { describe, expect, it } from 'vitest';
import { isCycloneError, TransitionRejectedError } from './errors.js';
import { assertRunTransition, assertStepTransition, proposeRun, proposeStep } from './propose.js';
import {
  isTerminalRun,
  isTerminalStep,
  RUN_STATES,
  STEP_STATES,
  type RunState,
  type StepState,
} from './states.js';
import { NODE_TYPES, STEP_TRANSITIONS } from './transitions.js';
import {
  isOperatorRetryTrigger,
  RUN_TRIGGERS,
  STEP_TRIGGERS,
  type RunTrigger,
  type StepTrigger,
} from './triggers.js';
import {
  DECISION_STEP_ROWS,
  REFERENCE_RUN_ROWS,
  REFERENCE_STEP_ROWS,
} from '../test/reference-rows.js';

import { absentPairs, fromOf, label, STEP_ROWS } from '../test/transition-fixtures.js';

describe('proposeStep', () => {
  it.each(
    REFERENCE_STEP_ROWS.map((row) => [row[0], label(fromOf(row)), row[2], row[3], row] as const),
  )('accepts the reference %s row %s -> %s by %s', (_table, _from, _to, _trigger, row) => {
    const proposal = proposeStep(
      fromOf<StepState>(row),
      row[2] as StepState,
      row[3] as StepTrigger,
    );
    expect(proposal).toMatchObject({ accepted: true, row: { to: row[2], trigger: row[3] } });
  });

  it.each(DECISION_STEP_ROWS.map((row) => [label(fromOf(row)), row[2], row[3], row] as const))(
    'accepts the decision row %s -> %s by %s',
    (_from, _to, _trigger, row) => {
      const proposal = proposeStep(
        fromOf<StepState>(row),
        row[2] as StepState,
        row[3] as StepTrigger,
      );
      expect(proposal).toMatchObject({ accepted: true, row: { to: row[2], trigger: row[3] } });
    },
  );

  it('accepts every row for each node type the row names', () => {
    for (const row of STEP_TRANSITIONS) {
      for (const type of row.nodeTypes ?? NODE_TYPES) {
        expect(proposeStep(row.from, row.to, row.trigger, type).accepted).toBe(true);
      }
    }
  });

  it.each(
    absentPairs(STEP_STATES, STEP_ROWS).map(([from, to]) => [label(from), to, from] as const),
  )('rejects %s -> %s under every trigger', (_label, to, from) => {
    for (const trigger of STEP_TRIGGERS) {
      const proposal = proposeStep(from, to, trigger);
      expect(proposal.accepted).toBe(false);
      if (proposal.accepted) continue;
      const expected =
        from !== null && isTerminalStep(from)
          ? 'terminal'
          : from === to
            ? 'same-state'
            : 'invalid-entry';
      expect(proposal.reason).toBe(expected);
      expect(proposal.message).toContain(trigger);
    }
  });

  it('rejects a pair that exists under another trigger as wrong-trigger, naming the right ones', () => {
    const proposal = proposeStep('running', 'available', 'claim');
    expect(proposal).toMatchObject({ accepted: false, reason: 'wrong-trigger' });
    if (!proposal.accepted) {
      expect(proposal.message).toContain('retryable_error');
      expect(proposal.message).toContain('reclaim');
    }
  });

  it('rejects every move out of a terminal state as terminal unless it is an operator retry row', () => {
    for (const from of STEP_STATES.filter(isTerminalStep)) {
      for (const to of STEP_STATES) {
        for (const trigger of STEP_TRIGGERS) {
          const proposal = proposeStep(from, to, trigger);
          if (proposal.accepted) expect(isOperatorRetryTrigger(trigger)).toBe(true);
          else expect(proposal.reason).toBe('terminal');
        }
      }
    }
  });

  it('rejects a claim of a child, fan-out or wait node as invalid-entry', () => {
    for (const type of ['child', 'fan_out', 'wait_signal', 'wait_timer'] as const) {
      expect(proposeStep('available', 'running', 'claim', type)).toMatchObject({
        accepted: false,
        reason: 'invalid-entry',
      });
    }
  });

  it('rejects promote for an item task, whose place is freed by a sibling instead', () => {
    expect(proposeStep('pending', 'available', 'promote', 'item')).toMatchObject({
      accepted: false,
      reason: 'wrong-trigger',
    });
    expect(proposeStep('pending', 'available', 'fan_out_slot_freed', 'item').accepted).toBe(true);
  });

  it('reopens a fail-fast-cancelled task on retry, but never moves a completed step', () => {
    expect(proposeStep('cancelled', 'pending', 'operator_retry_reopen', 'task').accepted).toBe(
      true,
    );
    expect(proposeStep('completed', 'pending', 'operator_retry_reopen')).toMatchObject({
      accepted: false,
      reason: 'terminal',
    });
  });
});

describe('proposeRun', () => {
  it.each(REFERENCE_RUN_ROWS.map((row) => [label(fromOf(row)), row[2], row[3], row] as const))(
    'accepts the reference run row %s -> %s by %s',
    (_from, _to, _trigger, row) => {
      const proposal = proposeRun(fromOf<RunState>(row), row[2] as RunState, row[3] as RunTrigger);
      expect(proposal).toMatchObject({ accepted: true, row: { to: row[2], trigger: row[3] } });
    },
  );

  it.each(
    absentPairs(RUN_STATES, REFERENCE_RUN_ROWS)
      // The decision row that restarts a cancelled child run (decision 82).
      .filter(([from, to]) => !(from === 'cancelled' && to === 'running'))
      .map(([from, to]) => [label(from), to, from] as const),
  )('rejects run %s -> %s under every trigger', (_label, to, from) => {
    for (const trigger of RUN_TRIGGERS) {
      const proposal = proposeRun(from, to, trigger);
      expect(proposal.accepted).toBe(false);
      if (proposal.accepted) continue;
      const expected =
        from !== null && isTerminalRun(from)
          ? 'terminal'
          : from === to
            ? 'same-state'
            : 'invalid-entry';
      expect(proposal.reason).toBe(expected);
    }
  });

  it('rejects resume of a running run as same-state and cancel of a cancelled run as terminal', () => {
    expect(proposeRun('running', 'running', 'resume')).toMatchObject({ reason: 'same-state' });
    expect(proposeRun('cancelled', 'cancelled', 'cancel')).toMatchObject({ reason: 'terminal' });
  });

  it('rejects a deadline on a paused run, which no scanner moves', () => {
    expect(proposeRun('paused', 'failed', 'run_deadline')).toMatchObject({
      reason: 'wrong-trigger',
    });
  });

  it('lets only an operator retry reopen a failed or cancelled run, and nothing reopen a completed one', () => {
    expect(proposeRun('failed', 'running', 'operator_retry').accepted).toBe(true);
    expect(proposeRun('completed', 'running', 'operator_retry')).toMatchObject({
      reason: 'terminal',
    });
    // Only a child run takes this row, when its parent's child node is retried (decision 82).
    expect(proposeRun('cancelled', 'running', 'operator_retry')).toMatchObject({
      accepted: true,
      row: { source: 'decision' },
    });
    expect(proposeRun('cancelled', 'running', 'resume')).toMatchObject({ reason: 'terminal' });
  });
});

describe('assertStepTransition and assertRunTransition', () => {
  it('return the accepted row', () => {
    expect(assertStepTransition('available', 'running', 'claim', 'task').trigger).toBe('claim');
    expect(assertRunTransition('running', 'paused', 'pause').to).toBe('paused');
  });

  it('throw TransitionRejectedError carrying the reason code', () => {
    const attempt = () => assertStepTransition('completed', 'running', 'claim');
    expect(attempt).toThrow(TransitionRejectedError);
    try {
      attempt();
    } catch (error) {
      expect(isCycloneError(error, 'TRANSITION_REJECTED')).toBe(true);
      expect(error).toMatchObject({
        entity: 'step',
        from: 'completed',
        to: 'running',
        reason: 'terminal',
      });
    }
    expect(() => assertRunTransition(null, 'paused', 'submit')).toThrow(/invalid-entry/);
  });
});
