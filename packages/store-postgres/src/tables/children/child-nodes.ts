import { parseWorkflowDefinition, type ChildNodeDefinition } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { loadParentRun } from '../runs/load-parent-run.js';

/** What a run's child nodes declare, and the input they pass on. */
export interface ChildNodesOfRun {
  /** The child nodes by node name. */
  readonly nodes: ReadonlyMap<string, ChildNodeDefinition>;
  /** The parent run's input as JSON text: the input of every child run it starts (decision 80). */
  readonly inputJson: string;
}

/**
 * Reads a run's child nodes from the definition stored for it at submit, so that any process can
 * start or settle them (a worker, the scheduler, a client's retry), whatever workflows it knows.
 * Undefined for a standalone job.
 */
export async function childNodesOfRun(
  db: SqlRunner,
  runId: string,
): Promise<ChildNodesOfRun | undefined> {
  const row = await loadParentRun(db, { runId });
  if (!row) return undefined;
  const definition = parseWorkflowDefinition(row.definition);
  const nodes = new Map<string, ChildNodeDefinition>();
  for (const node of definition.nodes) if (node.type === 'child') nodes.set(node.name, node);
  return { nodes, inputJson: row.input_json };
}
