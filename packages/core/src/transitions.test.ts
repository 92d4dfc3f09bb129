import { describe, expect, it } from 'vitest';
import { isTerminalStep, STEP_STATES } from './states.js';
import {
  NODE_TYPES,
  RUN_TRANSITIONS,
  STEP_TRANSITIONS,
  type TransitionSource,
} from './transitions.js';
import { isOperatorRetryTrigger, RUN_TRIGGERS, STEP_TRIGGERS } from './triggers.js';
import {
  DECISION_STEP_ROWS,
  REFERENCE_RUN_ROWS,
  REFERENCE_STEP_ROWS,
  type Row,
} from '../test/reference-rows.js';

function keyOf(row: { table: string; from: string | null; to: string; trigger: string }): string {
  return [row.table, row.from ?? '-', row.to, row.trigger].join(' ');
}

function keysWithSource(
  rows: readonly {
    table: string;
    from: string | null;
    to: string;
    trigger: string;
    source: TransitionSource;
  }[],
  source: TransitionSource,
): string[] {
  return rows
    .filter((r) => r.source === source)
    .map(keyOf)
    .sort();
}

const sorted = (rows: readonly Row[]): string[] => rows.map((r) => r.join(' ')).sort();

describe('the step transition table', () => {
  it('holds exactly the rows of the reference step, child and fan-out tables, marked reference', () => {
    expect(keysWithSource(STEP_TRANSITIONS, 'reference')).toEqual(sorted(REFERENCE_STEP_ROWS));
  });

  it('holds exactly the listed decision rows, marked decision', () => {
    expect(keysWithSource(STEP_TRANSITIONS, 'decision')).toEqual(sorted(DECISION_STEP_ROWS));
  });

  it('has no two rows with the same table, from, to and trigger', () => {
    const keys = STEP_TRANSITIONS.map(keyOf);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('names a node type on every row, and only known node types', () => {
    for (const row of STEP_TRANSITIONS) {
      expect(row.nodeTypes?.length, keyOf(row)).toBeGreaterThan(0);
      for (const type of row.nodeTypes ?? []) expect(NODE_TYPES).toContain(type);
    }
  });

  it('uses only declared triggers and states', () => {
    for (const row of STEP_TRANSITIONS) {
      expect(STEP_TRIGGERS).toContain(row.trigger);
      expect(STEP_STATES).toContain(row.to);
      if (row.from !== null) expect(STEP_STATES).toContain(row.from);
    }
  });

  it('leaves a terminal state only through an operator retry row', () => {
    for (const row of STEP_TRANSITIONS) {
      if (row.from !== null && isTerminalStep(row.from)) {
        expect(isOperatorRetryTrigger(row.trigger), keyOf(row)).toBe(true);
      }
    }
  });

  it('never lets a worker claim or run a child, fan-out or wait node', () => {
    const intoRunning = STEP_TRANSITIONS.filter((r) => r.to === 'running' || r.from === 'running');
    for (const row of intoRunning) {
      for (const type of row.nodeTypes ?? []) expect(['task', 'item']).toContain(type);
    }
  });

  it('never submits an item task, and inserts item tasks only by fan-out expansion', () => {
    for (const row of STEP_TRANSITIONS.filter((r) => r.from === null)) {
      expect(row.nodeTypes?.includes('item')).toBe(row.trigger === 'fan_out_expand');
    }
  });

  it('moves a fan-out node only out of pending, and never into a worker state', () => {
    const fanOut = STEP_TRANSITIONS.filter((r) => r.nodeTypes?.includes('fan_out'));
    for (const row of fanOut) {
      expect(['pending', 'discarded', 'cancelled', null]).toContain(row.from);
      expect(['available', 'running', 'paused']).not.toContain(row.to);
    }
  });

  it('is frozen, so no caller can add a row at run time', () => {
    expect(Object.isFrozen(STEP_TRANSITIONS)).toBe(true);
    expect(STEP_TRANSITIONS.every((r) => Object.isFrozen(r))).toBe(true);
    expect(
      STEP_TRANSITIONS.every((r) => r.nodeTypes === undefined || Object.isFrozen(r.nodeTypes)),
    ).toBe(true);
  });
});

describe('the run transition table', () => {
  it('holds exactly the rows of the reference run table marked reference, and one decision row', () => {
    const reference = RUN_TRANSITIONS.filter((r) => r.source === 'reference');
    expect(reference.map(keyOf).sort()).toEqual(sorted(REFERENCE_RUN_ROWS));
    expect(RUN_TRANSITIONS.every((r) => r.table === 'run')).toBe(true);
    // A cancelled child run starts again when its parent's child node is retried.
    expect(RUN_TRANSITIONS.filter((r) => r.source === 'decision').map(keyOf)).toEqual([
      keyOf({ table: 'run', from: 'cancelled', to: 'running', trigger: 'operator_retry' }),
    ]);
  });

  it('uses only declared run triggers', () => {
    for (const row of RUN_TRANSITIONS) expect(RUN_TRIGGERS).toContain(row.trigger);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(RUN_TRANSITIONS)).toBe(true);
    expect(RUN_TRANSITIONS.every((r) => Object.isFrozen(r))).toBe(true);
  });
});
