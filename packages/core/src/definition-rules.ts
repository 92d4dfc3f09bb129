import { graphIssues, nodePaths, unknownNodeMessage } from './definition-graph.js';
import {
  type NodeDefinition,
  type WorkflowDefinition,
  type WorkflowNodeType,
} from './definition-types.js';
import { type ValidationIssue } from './errors.js';
import { joinPath } from './json-payload.js';

// ---------------------------------------------------------------------------------------------
// Rules beyond the shape of each node.

/**
 * What the definition rules read of a node: enough to check the graph and the references between
 * nodes even when the node's other options are invalid.
 *
 * @internal
 */
export interface NodeSketch {
  /** Index in declaration order. */
  readonly position: number;
  readonly name: string;
  readonly type: WorkflowNodeType;
  /** The dependencies that are well-formed names. */
  readonly dependsOn: readonly string[];
  /** Fan-out source, when well-formed. */
  readonly from?: string;
  /** Child workflow, when well-formed. */
  readonly workflow?: string;
}

export interface RuleIssue {
  /** The node's declaration index; absent for an issue of the whole workflow. */
  readonly position?: number;
  readonly name?: string;
  readonly at: readonly (string | number)[];
  readonly message: string;
}

/** The sketch of a built node. */
export function sketchOf(node: NodeDefinition, position: number): NodeSketch {
  return {
    position,
    name: node.name,
    type: node.type,
    dependsOn: node.dependsOn,
    ...(node.type === 'fan_out' ? { from: node.from } : {}),
    ...(node.type === 'child' ? { workflow: node.workflow } : {}),
  };
}

export const ListOutputTypes: ReadonlySet<WorkflowNodeType> = new Set(['task', 'fan_out', 'child']);

export function ruleIssueList(
  workflowName: string | undefined,
  sketches: readonly NodeSketch[],
  declared: number,
): RuleIssue[] {
  if (declared === 0) return [{ at: [], message: 'expected at least one node, got none' }];
  const issues: RuleIssue[] = graphIssues(sketches).map((issue) => {
    const sketch = sketches[issue.node]!;
    return { position: sketch.position, name: sketch.name, at: issue.at, message: issue.message };
  });
  const byName = new Map<string, NodeSketch>();
  for (const sketch of sketches) if (!byName.has(sketch.name)) byName.set(sketch.name, sketch);
  for (const sketch of sketches) {
    const where = { position: sketch.position, name: sketch.name };
    if (sketch.type === 'fan_out' && sketch.from !== undefined) {
      const source = byName.get(sketch.from);
      if (sketch.from === sketch.name) {
        issues.push({
          ...where,
          at: ['from'],
          message: `fan-out node "${sketch.name}" takes its list from itself, expected an upstream node`,
        });
      } else if (source === undefined) {
        issues.push({
          ...where,
          at: ['from'],
          message: unknownNodeMessage(sketch.from, [...byName.keys()]),
        });
      } else if (!ListOutputTypes.has(source.type)) {
        issues.push({
          ...where,
          at: ['from'],
          message: `"${sketch.from}" is a ${source.type} node (its output is an object, never a list), expected a task, fan_out or child node`,
        });
      } else if (!sketch.dependsOn.includes(sketch.from)) {
        issues.push({
          ...where,
          at: ['dependsOn'],
          message: `expected to include "${sketch.from}", the node named in from`,
        });
      }
    }
    if (
      sketch.type === 'child' &&
      sketch.workflow !== undefined &&
      sketch.workflow === workflowName
    ) {
      issues.push({
        ...where,
        at: ['workflow'],
        message: `workflow "${workflowName}" cannot start itself as a child (every run would start another without end), expected another workflow`,
      });
    }
  }
  return issues;
}

/**
 * The rules of a definition beyond the shape of each node, as issues with paths: at least one node,
 * the graph rules of `graphIssues`, a fan-out's `from` naming an upstream node with list output
 * (and listed in its `dependsOn`), and no child node starting its own workflow.
 *
 * @param declared - how many nodes were declared, including those that could not be sketched
 * @internal
 */
export function definitionRuleIssues(
  workflowName: string | undefined,
  sketches: readonly NodeSketch[],
  declared: number,
): ValidationIssue[] {
  const list = nodePaths(
    sketches.map((sketch) => sketch.name),
    sketches.map((sketch) => sketch.position),
  );
  const paths = new Map(sketches.map((sketch, i) => [sketch.position, list[i]!]));
  return ruleIssueList(workflowName, sketches, declared).map((issue) => ({
    path:
      issue.position === undefined ? 'nodes' : joinPath(paths.get(issue.position)!, ...issue.at),
    message: issue.message,
  }));
}

/** Every rule a structurally valid definition breaks beyond its shape (graph, fan-out sources), as issues. */
export function definitionIssues(
  definition: Pick<WorkflowDefinition, 'name' | 'nodes'>,
): ValidationIssue[] {
  const sketches = definition.nodes.map((node, position) => sketchOf(node, position));
  return definitionRuleIssues(definition.name, sketches, definition.nodes.length);
}
