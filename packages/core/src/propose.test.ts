import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCycloneError, TransitionRejectedError } from './errors.js';
import {
  allowedRunFrom,
  allowedStepFrom,
  assertRunTransition,
  assertStepTransition,
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
  type Row,
} from '../test/reference-rows.js';

const fromOf = <S extends string>(row: Row): S | null => (row[1] === '-' ? null : (row[1] as S));
const label = (from: string | null) => from ?? '(inserted)';

/** Every (from, to) pair the expected rows allow, as `from>to`. */
function pairsOf(rows: readonly Row[]): Set<string> {
  return new Set(rows.map((row) => `${row[1]}>${row[2]}`));
}

/** Every (from, to) pair over the states, with `null` (inserted) as a from-state, that no row allows. */
function absentPairs<S extends string>(
  states: readonly S[],
  rows: readonly Row[],
): [S | null, S][] {
  const present = pairsOf(rows);
  const out: [S | null, S][] = [];
  for (const from of [null, ...states]) {
    for (const to of states) if (!present.has(`${from ?? '-'}>${to}`)) out.push([from, to]);
  }
  return out;
}

const STEP_ROWS = [...REFERENCE_STEP_ROWS, ...DECISION_STEP_ROWS];

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
