import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  type GraphNode,
  dependentsOf,
  downstreamOf,
  findCycle,
  findCycles,
  graphIssues,
  leafNodes,
  nodePaths,
  rootNodes,
  topologicalOrder,
  upstreamOf,
} from './definition-graph.js';
import { NotFoundError, ValidationError } from './errors.js';

const node = (name: string, ...dependsOn: string[]): GraphNode => ({ name, dependsOn });

// a -> b -> d, a -> c -> d, e alone; declared out of order on purpose.
const diamond = {
  name: 'diamond',
  nodes: [node('d', 'b', 'c'), node('b', 'a'), node('e'), node('a'), node('c', 'a')],
};

const names = (nodes: readonly GraphNode[]) => nodes.map((n) => n.name);

describe('topologicalOrder', () => {
  test('puts every node after its dependencies, breaking ties by declaration order', () => {
    expect(names(topologicalOrder(diamond))).toEqual(['e', 'a', 'b', 'c', 'd']);
  });

  test('keeps declaration order when nothing depends on anything', () => {
    expect(names(topologicalOrder({ nodes: [node('z'), node('y'), node('x')] }))).toEqual([
      'z',
      'y',
      'x',
    ]);
  });

  test('refuses a cycle with a ValidationError that names it', () => {
    const graph = { name: 'loop', nodes: [node('a', 'c'), node('b', 'a'), node('c', 'b')] };
    let error: unknown;
    try {
      topologicalOrder(graph);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).subject).toBe('workflow "loop"');
    expect((error as ValidationError).issues).toEqual([
      {
        path: 'nodes.a.dependsOn',
        message: expect.stringContaining('dependency cycle a -> c -> b -> a'),
      },
    ]);
  });

  test('orders any DAG so that dependencies come first', () => {
    fc.assert(
      fc.property(randomDag(), (graph) => {
        const order = names(topologicalOrder(graph));
        expect(order).toHaveLength(graph.nodes.length);
        const at = new Map(order.map((name, i) => [name, i]));
        for (const n of graph.nodes)
          for (const d of n.dependsOn) expect(at.get(d)!).toBeLessThan(at.get(n.name)!);
      }),
    );
  });
});

describe('findCycle and findCycles', () => {
  test('find nothing in a DAG', () => {
    expect(findCycle(diamond.nodes)).toBeUndefined();
    fc.assert(fc.property(randomDag(), (graph) => findCycles(graph.nodes).length === 0));
  });

  test('name a cycle from its earliest-declared node, reading each arrow as "depends on"', () => {
    expect(findCycle([node('x'), node('a', 'b'), node('b', 'c'), node('c', 'a')])).toEqual([
      'a',
      'b',
      'c',
      'a',
    ]);
  });

  test('report a self-dependency as a cycle of one node', () => {
    expect(findCycle([node('a', 'a')])).toEqual(['a', 'a']);
  });

  test('report one cycle per independent loop, the shortest through its first node', () => {
    const nodes = [
      node('a', 'b'),
      node('b', 'a', 'c'),
      node('c', 'a'),
      node('p', 'q'),
      node('q', 'p'),
    ];
    expect(findCycles(nodes)).toEqual([
      ['a', 'b', 'a'],
      ['p', 'q', 'p'],
    ]);
  });

  test('ignore dependencies on unknown nodes', () => {
    expect(findCycle([node('a', 'ghost')])).toBeUndefined();
  });

  test('find a real cycle whenever a back edge is added to a DAG', () => {
    fc.assert(
      fc.property(randomDag(2), fc.nat(), (graph, pick) => {
        // Make one of a node's dependencies depend on that node in turn: a guaranteed cycle.
        const withEdge = graph.nodes.find((n) => n.dependsOn.length > 0);
        fc.pre(withEdge !== undefined);
        const target = withEdge.dependsOn[pick % withEdge.dependsOn.length]!;
        const nodes = graph.nodes.map((n) =>
          n.name === target ? node(n.name, ...n.dependsOn, withEdge.name) : n,
        );
        const cycle = findCycle(nodes);
        expect(cycle).toBeDefined();
        expect(cycle![0]).toBe(cycle![cycle!.length - 1]);
        const byName = new Map(nodes.map((n) => [n.name, n]));
        for (let i = 0; i + 1 < cycle!.length; i++) {
          expect(byName.get(cycle![i]!)!.dependsOn).toContain(cycle![i + 1]);
        }
      }),
    );
  });
});

describe('graphIssues', () => {
  test('is empty for a valid DAG', () => {
    expect(graphIssues(diamond.nodes)).toEqual([]);
  });

  test('reports duplicate names, self, repeated and unknown dependencies, and cycles together', () => {
    const issues = graphIssues([
      node('a', 'a', 'b', 'b'),
      node('b', 'c'),
      node('c', 'b', 'ghost'),
      node('a'),
    ]);
    expect(issues).toEqual([
      {
        node: 3,
        at: ['name'],
        message: expect.stringContaining('"a" is already the name of nodes[0]'),
      },
      { node: 0, at: ['dependsOn', 0], message: expect.stringContaining('depends on itself') },
      { node: 0, at: ['dependsOn', 2], message: expect.stringContaining('"b" is listed twice') },
      {
        node: 2,
        at: ['dependsOn', 1],
        message: expect.stringContaining('"ghost" is not a node of this workflow'),
      },
      {
        node: 1,
        at: ['dependsOn'],
        message: expect.stringContaining('dependency cycle b -> c -> b'),
      },
    ]);
  });
});

describe('nodePaths', () => {
  test('name nodes by name, and by index when the name is missing or used again', () => {
    expect(nodePaths(['a', 'list-items', 'a', undefined, 'x.y'])).toEqual([
      'nodes.a',
      'nodes.list-items',
      'nodes[2]',
      'nodes[3]',
      'nodes["x.y"]',
    ]);
  });
});

describe('dependents, downstream and upstream', () => {
  test('dependentsOf maps every node to its direct dependents in declaration order', () => {
    expect(Object.fromEntries(dependentsOf(diamond))).toEqual({
      d: [],
      b: ['d'],
      e: [],
      a: ['b', 'c'],
      c: ['d'],
    });
  });

  test('downstreamOf gives every transitive dependent, without the node itself', () => {
    expect(downstreamOf(diamond, 'a')).toEqual(['d', 'b', 'c']);
    expect(downstreamOf(diamond, 'b')).toEqual(['d']);
    expect(downstreamOf(diamond, 'd')).toEqual([]);
  });

  test('upstreamOf gives every transitive dependency, without the node itself', () => {
    expect(upstreamOf(diamond, 'd')).toEqual(['b', 'a', 'c']);
    expect(upstreamOf(diamond, 'a')).toEqual([]);
  });

  test('an unknown node is a NotFoundError', () => {
    expect(() => downstreamOf(diamond, 'nope')).toThrow(NotFoundError);
    expect(() => upstreamOf(diamond, 'nope')).toThrow(NotFoundError);
  });
});

describe('rootNodes and leafNodes', () => {
  test('roots have no dependencies and leaves have no dependents, in declaration order', () => {
    expect(names(rootNodes(diamond))).toEqual(['e', 'a']);
    expect(names(leafNodes(diamond))).toEqual(['d', 'e']);
  });
});

/** Random DAGs: each node depends only on nodes created before it, then the declaration order is shuffled. */
function randomDag(minNodes = 1) {
  return fc
    .integer({ min: minNodes, max: 12 })
    .chain((count) =>
      fc.tuple(
        fc.tuple(
          ...Array.from({ length: count }, (_, i) =>
            fc.subarray(Array.from({ length: i }, (_, j) => `n${j}`)),
          ),
        ),
        fc.shuffledSubarray(
          Array.from({ length: count }, (_, i) => i),
          { minLength: count, maxLength: count },
        ),
      ),
    )
    .map(([deps, order]) => ({ nodes: order.map((i) => node(`n${i}`, ...deps[i]!)) }));
}
