import { indexByName, type GraphNode } from './graph-node.js';

/**
 * The dependency cycles of a workflow graph, found by Tarjan's algorithm and reported as the
 * shortest cycle through each component's earliest-declared node.
 *
 * @packageDocumentation
 */

/**
 * One dependency cycle, as the names along it with the first repeated at the end (`['a', 'b', 'a']`
 * means a depends on b and b on a; a self-dependency is `['a', 'a']`), or `undefined` when there is
 * none. Dependencies on unknown names are ignored.
 */
export function findCycle(nodes: readonly GraphNode[]): string[] | undefined {
  return findCycles(nodes)[0];
}

/**
 * One cycle for every strongly connected component that has one, ordered by the component's
 * earliest-declared node, each starting there and as short as possible through it.
 */
export function findCycles(nodes: readonly GraphNode[]): string[][] {
  const index = indexByName(nodes);
  const edges = nodes.map((node) =>
    node.dependsOn.flatMap((dependency) => {
      const target = index.get(dependency);
      return target === undefined ? [] : [target];
    }),
  );
  const cycles: string[][] = [];
  for (const component of stronglyConnected(edges)) {
    const start = Math.min(...component);
    const members = new Set(component);
    const cycle = shortestCycleThrough(start, edges, members);
    if (cycle !== undefined) cycles.push(cycle.map((i) => nodes[i]!.name));
  }
  return cycles.sort((a, b) => index.get(a[0]!)! - index.get(b[0]!)!);
}

/** Tarjan's algorithm; components that cannot hold a cycle (one node, no self-edge) are left out. */
function stronglyConnected(edges: readonly (readonly number[])[]): number[][] {
  const order = new Array<number>(edges.length).fill(-1);
  const low = new Array<number>(edges.length).fill(0);
  const onStack = new Array<boolean>(edges.length).fill(false);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  // Recursion depth is at most the number of nodes, which for a workflow is small.
  const visit = (v: number): void => {
    order[v] = low[v] = counter++;
    stack.push(v);
    onStack[v] = true;
    for (const w of edges[v]!) {
      if (order[w] === -1) {
        visit(w);
        low[v] = Math.min(low[v], low[w]!);
      } else if (onStack[w]) low[v] = Math.min(low[v], order[w]!);
    }
    if (low[v] !== order[v]) return;
    const component: number[] = [];
    let w: number;
    do {
      w = stack.pop()!;
      onStack[w] = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || edges[v]!.includes(v)) components.push(component);
  };
  for (let v = 0; v < edges.length; v++) if (order[v] === -1) visit(v);
  return components;
}

/** Breadth-first search from `start` back to itself, staying inside one component. */
function shortestCycleThrough(
  start: number,
  edges: readonly (readonly number[])[],
  members: ReadonlySet<number>,
): number[] | undefined {
  const previous = new Map<number, number>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of edges[v]!) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at = v; at !== start; at = previous.get(at)!) path.push(at);
        // `path` runs backwards from the edge into start; turn it into start -> ... -> start.
        return [start, ...path.slice(1).reverse(), start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return undefined;
}
