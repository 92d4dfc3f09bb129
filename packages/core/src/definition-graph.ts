import { NotFoundError, ValidationError } from './errors.js';
import { joinPath } from './json-payload.js';
import { findCycles } from './graph-cycles.js';
import { indexByName, type Graph, type GraphNode } from './graph-node.js';
import { nearestName } from './nearest-name.js';

/**
 * The dependency graph of a workflow definition: the rules it must satisfy (unique names, known
 * dependencies, no cycles) and the questions the engine asks of it (what runs first, what is
 * downstream of a discarded node, which nodes are leaves). Every function works on any
 * `{ name, dependsOn }` nodes, so it serves the builder, the parser and the engine alike, and
 * results follow declaration order so that they are deterministic.
 *
 * @packageDocumentation
 */

export type { Graph, GraphNode } from './graph-node.js';
export { findCycle, findCycles } from './graph-cycles.js';
export { nearestName } from './nearest-name.js';

/** A rule of the graph that a node breaks. */
export interface GraphIssue {
  /** Index of the offending node in declaration order. */
  readonly node: number;
  /** Where inside the node, e.g. `['dependsOn', 1]`. */
  readonly at: readonly (string | number)[];
  /** What is wrong and what was expected. */
  readonly message: string;
}

/**
 * The issue path of a node: `nodes.<name>` (or `nodes["odd name"]`), or `nodes[<index>]` when the
 * node has no usable name.
 */
export function nodePath(name: unknown, index: number): string {
  return typeof name === 'string' && name !== ''
    ? joinPath('nodes', name)
    : joinPath('nodes', index);
}

/**
 * The issue path of each node: {@link nodePath}, except that a name used again by a later node
 * gives that node `nodes[<index>]`, so that each path points at one node.
 *
 * @param positions - the declaration index of each entry of `names`, when they are not `0, 1, ...`
 */
export function nodePaths(names: readonly unknown[], positions?: readonly number[]): string[] {
  const seen = new Set<unknown>();
  return names.map((name, i) => {
    const index = positions?.[i] ?? i;
    const first = !seen.has(name);
    seen.add(name);
    return first ? nodePath(name, index) : joinPath('nodes', index);
  });
}

/**
 * Every break of the graph rules: a name used twice, a dependency listed twice, on the node itself
 * or on no node of the graph, and every dependency cycle (one per strongly connected component,
 * named as `a -> b -> a`, read "depends on"). An empty array means the graph is a valid DAG.
 */
export function graphIssues(nodes: readonly GraphNode[]): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const firstIndex = new Map<string, number>();
  nodes.forEach((node, index) => {
    const first = firstIndex.get(node.name);
    if (first === undefined) firstIndex.set(node.name, index);
    else {
      issues.push({
        node: index,
        at: ['name'],
        message: `"${node.name}" is already the name of nodes[${first}], expected unique node names`,
      });
    }
  });
  nodes.forEach((node, index) => {
    const listed = new Set<string>();
    node.dependsOn.forEach((dependency, position) => {
      const at = ['dependsOn', position];
      if (dependency === node.name) {
        issues.push({
          node: index,
          at,
          message: `node "${node.name}" depends on itself, expected other nodes`,
        });
      } else if (listed.has(dependency)) {
        issues.push({
          node: index,
          at,
          message: `"${dependency}" is listed twice, expected each dependency once`,
        });
      } else if (!firstIndex.has(dependency)) {
        issues.push({
          node: index,
          at,
          message: unknownNodeMessage(dependency, [...firstIndex.keys()]),
        });
      }
      listed.add(dependency);
    });
  });
  for (const cycle of findCycles(nodes)) {
    if (cycle.length <= 2) continue; // a self-dependency, reported above
    issues.push({
      node: firstIndex.get(cycle[0]!)!,
      at: ['dependsOn'],
      message: `dependency cycle ${cycle.join(' -> ')} (each node depends on the next), expected no cycles`,
    });
  }
  return issues;
}

/**
 * The message for a reference to a node that does not exist, listing the nodes that do and
 * suggesting the nearest name.
 */
export function unknownNodeMessage(name: string, known: readonly string[]): string {
  const nearest = nearestName(name, known);
  const hint = nearest === undefined ? '' : ` (did you mean "${nearest}"?)`;
  const shown = known.length > 20 ? `${known.slice(0, 20).join(', ')}, ...` : known.join(', ');
  return `"${name}" is not a node of this workflow${hint}, expected one of: ${shown || '(no nodes)'}`;
}

/**
 * The nodes in an order in which each comes after all of its dependencies; among nodes that are
 * ready at the same time, the earlier-declared comes first.
 *
 * @throws ValidationError when the graph breaks a rule of {@link graphIssues} (e.g. has a cycle)
 */
export function topologicalOrder<N extends GraphNode>(graph: Graph<N>): N[] {
  assertValidGraph(graph);
  const { nodes } = graph;
  const index = indexByName(nodes);
  const waitingOn = nodes.map((node) => node.dependsOn.length);
  const dependents = nodes.map((): number[] => []);
  nodes.forEach((node, i) => node.dependsOn.forEach((d) => dependents[index.get(d)!]!.push(i)));
  // Ready nodes kept sorted by declaration index; definitions are small, so insertion is fine.
  const ready = waitingOn.flatMap((count, i) => (count === 0 ? [i] : []));
  const order: N[] = [];
  while (ready.length > 0) {
    const next = ready.shift()!;
    order.push(nodes[next]!);
    for (const dependent of dependents[next]!) {
      waitingOn[dependent] = waitingOn[dependent]! - 1;
      if (waitingOn[dependent] === 0) {
        const at = ready.findIndex((i) => i > dependent);
        ready.splice(at === -1 ? ready.length : at, 0, dependent);
      }
    }
  }
  return order;
}

/**
 * For every node, the names of the nodes that list it in `dependsOn` (its direct dependents), in
 * declaration order. Leaves map to an empty array.
 */
export function dependentsOf(graph: Graph): ReadonlyMap<string, readonly string[]> {
  const dependents = new Map<string, string[]>();
  for (const node of graph.nodes) if (!dependents.has(node.name)) dependents.set(node.name, []);
  for (const node of graph.nodes) {
    for (const dependency of node.dependsOn) dependents.get(dependency)?.push(node.name);
  }
  return dependents;
}

/**
 * The names of every node that depends on `node` directly or through others, in declaration order,
 * without `node` itself: what a discard of `node` reaches.
 *
 * @throws NotFoundError when the graph has no node of that name
 */
export function downstreamOf(graph: Graph, node: string): string[] {
  return reachable(graph, node, dependentsOf(graph));
}

/**
 * The names of every node that `node` depends on directly or through others, in declaration order,
 * without `node` itself.
 *
 * @throws NotFoundError when the graph has no node of that name
 */
export function upstreamOf(graph: Graph, node: string): string[] {
  const dependencies = new Map(graph.nodes.map((n) => [n.name, n.dependsOn] as const));
  return reachable(graph, node, dependencies);
}

/** The nodes without dependencies, in declaration order: those a new run starts with. */
export function rootNodes<N extends GraphNode>(graph: Graph<N>): N[] {
  return graph.nodes.filter((node) => node.dependsOn.length === 0);
}

/** The nodes no other node depends on, in declaration order: those whose outputs are the run's result. */
export function leafNodes<N extends GraphNode>(graph: Graph<N>): N[] {
  const dependents = dependentsOf(graph);
  return graph.nodes.filter((node) => dependents.get(node.name)?.length === 0);
}

function reachable(
  graph: Graph,
  start: string,
  edges: ReadonlyMap<string, readonly string[]>,
): string[] {
  if (!edges.has(start)) throw new NotFoundError('node', start);
  const seen = new Set<string>([start]);
  const queue = [start];
  while (queue.length > 0) {
    for (const next of edges.get(queue.shift()!) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  seen.delete(start);
  return graph.nodes.map((n) => n.name).filter((name) => seen.has(name));
}

function assertValidGraph(graph: Graph): void {
  const issues = graphIssues(graph.nodes);
  if (issues.length === 0) return;
  const subject = graph.name === undefined ? 'workflow graph' : `workflow "${graph.name}"`;
  const paths = nodePaths(graph.nodes.map((node) => node.name));
  throw new ValidationError(
    subject,
    issues.map((issue) => ({
      path: joinPath(paths[issue.node]!, ...issue.at),
      message: issue.message,
    })),
  );
}
