import { describe, expect, it } from 'vitest';
import { isCycloneError, type ValidationError, type ValidationIssue } from './errors.js';
import { OutputBytes } from './limits.js';
import {
  nodesDownstream,
  parseNodeMove,
  proposeNodeMove,
  type NodeMoveFacts,
} from './node-move.js';
import { STEP_TRANSITIONS } from './transitions.js';
import { StepTrigger } from './triggers.js';

const now = new Date('2026-01-01T00:00:10.000Z');
const facts = (over: Partial<NodeMoveFacts>): NodeMoveFacts => ({
  runState: 'running',
  from: 'running',
  to: 'completed',
  nodeType: 'task',
  force: true,
  lastMove: null,
  now,
  ...over,
});

function issuesOf(fn: () => unknown): ValidationIssue[] {
  try {
    fn();
  } catch (error) {
    expect(isCycloneError(error, 'VALIDATION')).toBe(true);
    return [...(error as ValidationError).issues];
  }
  throw new Error('expected a ValidationError');
}

describe('parseNodeMove', () => {
  it('accepts a completion with an output, encoding it, and forces by default', () => {
    const move = parseNodeMove('force', { to: 'completed', output: { a: 1 }, reason: 'fixed' });
    expect(move).toEqual({ to: 'completed', outputJson: '{"a":1}', reason: 'fixed', force: true });
  });

  it('gives a completion without output the output null', () => {
    expect(parseNodeMove('force', { to: 'completed', reason: 'r' }).outputJson).toBe('null');
  });

  it('names `to` outside the three terminal states', () => {
    const issues = issuesOf(() => parseNodeMove('force', { to: 'running' as never, reason: 'r' }));
    expect(issues.map((i) => i.path)).toEqual(['to']);
    expect(issues[0]!.message).toContain('completed, discarded, cancelled');
  });

  it('names an empty, blank or missing reason', () => {
    for (const reason of ['', '   ', undefined]) {
      const issues = issuesOf(() =>
        parseNodeMove('force', { to: 'cancelled', reason: reason as string }),
      );
      expect(issues.map((i) => i.path)).toEqual(['reason']);
    }
  });

  it('names an output that is not JSON, or too large, or given for a move that is not a completion', () => {
    expect(
      issuesOf(() => parseNodeMove('force', { to: 'completed', output: 1n, reason: 'r' }))[0]!.path,
    ).toBe('output');
    const big = 'x'.repeat(OutputBytes + 1);
    expect(
      issuesOf(() => parseNodeMove('force', { to: 'completed', output: big, reason: 'r' }))[0]!
        .path,
    ).toBe('output');
    expect(
      issuesOf(() => parseNodeMove('force', { to: 'discarded', output: 1, reason: 'r' }))[0]!.path,
    ).toBe('output');
  });

  it('names a force that is not a boolean', () => {
    const issues = issuesOf(() =>
      parseNodeMove('force', { to: 'cancelled', reason: 'r', force: 'yes' as never }),
    );
    expect(issues.map((i) => i.path)).toEqual(['force']);
  });
});

describe('proposeNodeMove', () => {
  it('accepts a forced move from every non-terminal state of each node type, as a force row', () => {
    for (const row of STEP_TRANSITIONS.filter((r) => r.trigger === StepTrigger.Force)) {
      for (const nodeType of row.nodeTypes ?? []) {
        const p = proposeNodeMove(
          facts({ from: row.from!, to: row.to as never, nodeType, force: true }),
        );
        expect(p.accepted, `${nodeType} ${row.from} -> ${row.to}`).toBe(true);
      }
    }
  });

  it('refuses a move of a node that ended as terminal, forced or not', () => {
    for (const force of [true, false]) {
      const p = proposeNodeMove(facts({ from: 'completed', to: 'cancelled', force }));
      expect(p).toMatchObject({ accepted: false, reason: 'terminal' });
    }
  });

  it('refuses any move in a terminal run as terminal', () => {
    const p = proposeNodeMove(facts({ runState: 'failed', from: 'pending' }));
    expect(p).toMatchObject({ accepted: false, reason: 'terminal' });
  });

  it('refuses an item task: items move with their fan-out node', () => {
    const p = proposeNodeMove(facts({ nodeType: 'item' }));
    expect(p).toMatchObject({ accepted: false, reason: 'invalid-entry' });
  });

  it('without force, accepts only what the table does by itself', () => {
    expect(proposeNodeMove(facts({ force: false })).accepted).toBe(true); // running -> completed
    expect(
      proposeNodeMove(facts({ force: false, from: 'pending', to: 'cancelled' })).accepted,
    ).toBe(true);
    expect(
      proposeNodeMove(facts({ force: false, from: 'waiting_signal', nodeType: 'wait_signal' }))
        .accepted,
    ).toBe(true);
    const refused = proposeNodeMove(facts({ force: false, from: 'pending', to: 'completed' }));
    expect(refused).toMatchObject({ accepted: false, reason: 'invalid-entry' });
    expect(proposeNodeMove(facts({ force: true, from: 'pending', to: 'completed' })).accepted).toBe(
      true,
    );
  });

  it('refuses the same move within one second as duplicate, before anything else', () => {
    const lastMove = { to: 'completed', at: new Date(now.getTime() - 400) };
    const p = proposeNodeMove(facts({ from: 'completed', lastMove }));
    expect(p).toMatchObject({ accepted: false, reason: 'duplicate' });
    const ended = proposeNodeMove(facts({ runState: 'completed', from: 'completed', lastMove }));
    expect(ended).toMatchObject({ accepted: false, reason: 'duplicate' });
  });

  it('does not call a different move, or the same one a second later, a duplicate', () => {
    const other = { to: 'cancelled', at: new Date(now.getTime() - 400) };
    expect(proposeNodeMove(facts({ lastMove: other })).accepted).toBe(true);
    const later = { to: 'completed', at: new Date(now.getTime() - 1000) };
    expect(proposeNodeMove(facts({ lastMove: later })).accepted).toBe(true);
  });
});

describe('nodesDownstream', () => {
  it('gives every node transitively downstream, not the start', () => {
    const nodes = [
      { name: 'a', dependsOn: [] },
      { name: 'b', dependsOn: ['a'] },
      { name: 'c', dependsOn: ['b', 'x'] },
      { name: 'x', dependsOn: [] },
    ];
    expect([...nodesDownstream(nodes, 'a')].sort()).toEqual(['b', 'c']);
    expect([...nodesDownstream(nodes, 'c')]).toEqual([]);
  });
});
