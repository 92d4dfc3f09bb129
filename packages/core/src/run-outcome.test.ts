import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OnDepFailure } from './error-kind.js';
import { ValidationError } from './errors.js';
import { proposeRun, proposeStep } from './propose.js';
import { decideRunOutcome, type RunNodeView } from './run-outcome.js';
import {
  isTerminalRun,
  isTerminalStep,
  RUN_STATES,
  STEP_STATES,
  type RunState,
  type StepState,
} from './states.js';

const { FailRun, CancelBranch } = OnDepFailure;

function node(
  name: string,
  state: StepState,
  dependsOn: readonly string[] = [],
  onDepFailure: OnDepFailure = FailRun,
): RunNodeView {
  return { name, state, dependsOn, onDepFailure };
}

describe('decideRunOutcome', () => {
  it('keeps a running run running while a node is still in progress', () => {
    const outcome = decideRunOutcome({
      runState: 'running',
      nodes: [node('a', 'completed'), node('b', 'running', ['a'])],
    });
    expect(outcome).toEqual({ state: 'running', cancel: [] });
  });

  it('completes a run whose nodes all completed', () => {
    const outcome = decideRunOutcome({
      runState: 'running',
      nodes: [node('a', 'completed'), node('b', 'completed', ['a'])],
    });
    expect(outcome).toEqual({ state: 'completed', trigger: 'complete', cancel: [] });
  });

  it('contains a discard whose whole downstream chain declares CancelBranch, and completes the run', () => {
    const outcome = decideRunOutcome({
      runState: 'running',
      nodes: [
        node('charge', 'discarded'),
        node('ship', 'pending', ['charge'], CancelBranch),
        node('notify', 'pending', ['ship'], CancelBranch),
        node('audit', 'completed'),
      ],
    });
    expect(outcome).toEqual({
      state: 'completed',
      trigger: 'complete',
      cancel: [
        { node: 'ship', trigger: 'cancel_branch' },
        { node: 'notify', trigger: 'cancel_branch' },
      ],
    });
  });

  it('cancels a contained branch but keeps the run running while another branch works', () => {
    const outcome = decideRunOutcome({
      runState: 'running',
      nodes: [
        node('a', 'discarded'),
        node('b', 'pending', ['a'], CancelBranch),
        node('c', 'running'),
      ],
    });
    expect(outcome).toEqual({
      state: 'running',
      cancel: [{ node: 'b', trigger: 'cancel_branch' }],
    });
  });

  it('fails the run when a FailRun node sits deep in the branch, cancelling the rest with fail_fast', () => {
    const outcome = decideRunOutcome({
      runState: 'running',
      nodes: [
        node('a', 'discarded'),
        node('b', 'pending', ['a'], CancelBranch),
        node('c', 'pending', ['b'], CancelBranch),
        node('d', 'pending', ['c'], FailRun),
        node('other', 'available'),
        node('done', 'completed'),
      ],
    });
    expect(outcome).toEqual({
      state: 'failed',
      trigger: 'discard_uncontained',
      failedBy: 'a',
      cancel: [
        { node: 'b', trigger: 'fail_fast' },
        { node: 'c', trigger: 'fail_fast' },
        { node: 'd', trigger: 'fail_fast' },
        { node: 'other', trigger: 'fail_fast' },
      ],
    });
  });

  it('fails the run when the discarded node has no dependents, even if every node declares CancelBranch', () => {
    const outcome = decideRunOutcome({
      runState: 'running',
      nodes: [
        node('leaf', 'discarded', [], CancelBranch),
        node('x', 'waiting_signal', [], CancelBranch),
      ],
    });
    expect(outcome).toMatchObject({
      state: 'failed',
      failedBy: 'leaf',
      cancel: [{ node: 'x', trigger: 'fail_fast' }],
    });
  });

  it('fails the run through a diamond when one path declares FailRun', () => {
    const outcome = decideRunOutcome({
      runState: 'running',
      nodes: [
        node('a', 'discarded'),
        node('b', 'pending', ['a'], CancelBranch),
        node('c', 'pending', ['a'], FailRun),
        node('d', 'pending', ['b', 'c'], CancelBranch),
      ],
    });
    expect(outcome.state).toBe('failed');
  });

  it('names the first uncontained discard in node order', () => {
    const outcome = decideRunOutcome({
      runState: 'running',
      nodes: [
        node('a', 'discarded'),
        node('b', 'pending', ['a'], CancelBranch),
        node('c', 'discarded'),
        node('d', 'discarded'),
      ],
    });
    expect(outcome.failedBy).toBe('c');
  });

  it('completes a paused run when a step in progress at the pause completed the last node', () => {
    const outcome = decideRunOutcome({
      runState: 'paused',
      nodes: [node('a', 'completed'), node('b', 'completed', ['a'])],
    });
    expect(outcome).toEqual({ state: 'completed', trigger: 'complete', cancel: [] });
  });

  it('fails a paused run when a step in progress at the pause was discarded uncontained', () => {
    const outcome = decideRunOutcome({
      runState: 'paused',
      nodes: [node('a', 'discarded'), node('b', 'paused')],
    });
    expect(outcome).toEqual({
      state: 'failed',
      trigger: 'discard_uncontained',
      failedBy: 'a',
      cancel: [{ node: 'b', trigger: 'fail_fast' }],
    });
  });

  it('keeps a paused run paused while paused nodes remain', () => {
    const outcome = decideRunOutcome({
      runState: 'paused',
      nodes: [node('a', 'completed'), node('b', 'paused', ['a'])],
    });
    expect(outcome).toEqual({ state: 'paused', cancel: [] });
  });

  it.each(['completed', 'failed', 'cancelled'] as const)(
    'returns a %s run unchanged, with no cancellations',
    (runState) => {
      const outcome = decideRunOutcome({
        runState,
        nodes: [node('a', 'discarded'), node('b', 'running')],
      });
      expect(outcome).toEqual({ state: runState, cancel: [] });
    },
  );

  it('treats cancelled nodes as terminal', () => {
    const outcome = decideRunOutcome({
      runState: 'running',
      nodes: [node('a', 'completed'), node('b', 'cancelled')],
    });
    expect(outcome.state).toBe('completed');
  });

  it('refuses a node that depends on an unknown node', () => {
    expect(() =>
      decideRunOutcome({ runState: 'running', nodes: [node('a', 'pending', ['ghost'])] }),
    ).toThrow(ValidationError);
  });
});

/** A random DAG: node i may depend only on nodes before it, so there is never a cycle. */
const graph = fc
  .integer({ min: 1, max: 8 })
  .chain((size) =>
    fc.tuple(
      ...Array.from({ length: size }, (_, i) =>
        fc.record({
          state: fc.constantFrom(...STEP_STATES),
          onDepFailure: fc.constantFrom(FailRun, CancelBranch),
          dependsOn: fc.subarray(Array.from({ length: i }, (_, j) => `n${j}`)),
        }),
      ),
    ),
  )
  .map((specs) => specs.map((spec, i): RunNodeView => ({ name: `n${i}`, ...spec })));

const runState = fc.constantFrom<RunState>(...RUN_STATES);

describe('decideRunOutcome over random runs', () => {
  it('never reports completed while a node is non-terminal after the cancellations', () => {
    fc.assert(
      fc.property(runState, graph, (state, nodes) => {
        const outcome = decideRunOutcome({ runState: state, nodes });
        if (outcome.state !== 'completed' || isTerminalRun(state)) return;
        const cancelled = new Set(outcome.cancel.map((c) => c.node));
        for (const n of nodes) expect(isTerminalStep(n.state) || cancelled.has(n.name)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('never un-terminates a terminal run', () => {
    fc.assert(
      fc.property(runState.filter(isTerminalRun), graph, (state, nodes) => {
        expect(decideRunOutcome({ runState: state, nodes })).toEqual({ state, cancel: [] });
      }),
    );
  });

  it('always fails a live run that has a discarded leaf', () => {
    fc.assert(
      fc.property(
        runState.filter((s) => !isTerminalRun(s)),
        graph,
        (state, nodes) => {
          const hasDependents = new Set(nodes.flatMap((n) => n.dependsOn));
          const leaf = nodes.find((n) => n.state === 'discarded' && !hasDependents.has(n.name));
          fc.pre(leaf !== undefined);
          const outcome = decideRunOutcome({ runState: state, nodes });
          expect(outcome.state).toBe('failed');
          expect(outcome.failedBy).toBeDefined();
        },
      ),
      { numRuns: 500 },
    );
  });

  it('cancels only non-terminal nodes along a step row, and moves the run only along a run row', () => {
    fc.assert(
      fc.property(runState, graph, (state, nodes) => {
        const outcome = decideRunOutcome({ runState: state, nodes });
        const byName = new Map(nodes.map((n) => [n.name, n]));
        for (const c of outcome.cancel) {
          const from = byName.get(c.node)!.state;
          expect(isTerminalStep(from)).toBe(false);
          expect(proposeStep(from, 'cancelled', c.trigger).accepted).toBe(true);
        }
        if (outcome.state === state) {
          expect(outcome.trigger).toBeUndefined();
        } else {
          expect(outcome.trigger).toBeDefined();
          expect(proposeRun(state, outcome.state, outcome.trigger!).accepted).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('fails exactly when some discard has a FailRun node downstream or no dependents', () => {
    fc.assert(
      fc.property(
        runState.filter((s) => !isTerminalRun(s)),
        graph,
        (state, nodes) => {
          // An independent statement of the rule: walk each discarded node's downstream by recursion.
          const downstream = (name: string): RunNodeView[] =>
            nodes
              .filter((n) => n.dependsOn.includes(name))
              .flatMap((n) => [n, ...downstream(n.name)]);
          const uncontained = nodes.some((n) => {
            if (n.state !== 'discarded') return false;
            const below = downstream(n.name);
            return below.length === 0 || below.some((d) => d.onDepFailure === FailRun);
          });
          expect(decideRunOutcome({ runState: state, nodes }).state === 'failed').toBe(uncontained);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
