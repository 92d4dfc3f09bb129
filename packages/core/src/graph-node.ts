/** The part of a node the graph functions read. */
export interface GraphNode {
  readonly name: string;
  /** Names of the nodes that must complete before this one starts. */
  readonly dependsOn: readonly string[];
}

/** A set of nodes in declaration order, such as a `WorkflowDefinition`. */
export interface Graph<N extends GraphNode = GraphNode> {
  /** The workflow's name, used in error subjects when present. */
  readonly name?: string;
  readonly nodes: readonly N[];
}

/** Each node's position by name (the first, for a duplicated name). */
export function indexByName(nodes: readonly GraphNode[]): Map<string, number> {
  const index = new Map<string, number>();
  nodes.forEach((node, i) => {
    if (!index.has(node.name)) index.set(node.name, i);
  });
  return index;
}
