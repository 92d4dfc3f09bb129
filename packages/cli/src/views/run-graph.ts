import { stepLabel, type StepStatus } from '@cyclone/core';
import { table } from '../terminal/output.js';
import { shortDuration, waitingFor } from './waiting.js';

/** How many levels below its roots each node sits: 0 for a root, else 1 + its deepest upstream. */
export function nodeDepths(nodes: readonly StepStatus[]): Map<string, number> {
  const byName = new Map(nodes.map((n) => [n.node, n]));
  const depths = new Map<string, number>();
  const depthOf = (name: string, seen: ReadonlySet<string>): number => {
    const known = depths.get(name);
    if (known !== undefined) return known;
    const node = byName.get(name);
    // Definitions are acyclic (build() refuses a cycle); `seen` only keeps a bad row from looping.
    const upstream = (node?.dependsOn ?? []).filter((d) => byName.has(d) && !seen.has(d));
    const depth =
      upstream.length === 0
        ? 0
        : 1 + Math.max(...upstream.map((d) => depthOf(d, new Set([...seen, name]))));
    depths.set(name, depth);
    return depth;
  };
  for (const node of nodes) depthOf(node.node, new Set());
  return depths;
}

function timing(step: StepStatus, now: number): string {
  const waiting = waitingFor(step);
  if (waiting) return waiting;
  if (step.startedAt && step.endedAt) {
    return shortDuration(step.endedAt.getTime() - step.startedAt.getTime());
  }
  if (step.startedAt && step.state === 'running') {
    return `${shortDuration(Math.max(0, now - step.startedAt.getTime()))} so far`;
  }
  return '-';
}

/** One line of counts over a fan-out node's item tasks: `items 3/10 completed, 2 running`. */
function itemSummary(items: readonly StepStatus[]): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item.state, (counts.get(item.state) ?? 0) + 1);
  const completed = counts.get('completed') ?? 0;
  counts.delete('completed');
  const rest = [...counts].map(([state, n]) => `${n} ${state}`);
  return [`items ${completed}/${items.length} completed`, ...rest].join(', ');
}

/**
 * A run's graph as lines that fit `width`: its nodes in topological order (by depth, then
 * declaration), each indented under its upstream level with `<-` naming its dependencies, and
 * its state (with label), attempts, error kind and timing; a fan-out node's item tasks are
 * counted on the line below it.
 */
export function runGraph(steps: readonly StepStatus[], width: number, now = Date.now()): string {
  const nodes = steps.filter((s) => s.itemIndex === null);
  const depths = nodeDepths(nodes);
  const order = nodes
    .map((node, index) => ({ node, index, depth: depths.get(node.node) ?? 0 }))
    .sort((a, b) => a.depth - b.depth || a.index - b.index);
  const rows: string[][] = [];
  for (const { node, depth } of order) {
    const indent = depth === 0 ? '' : `${'  '.repeat(depth - 1)}└ `;
    const label = stepLabel(node);
    rows.push([
      `${indent}${node.node}`,
      label ? `${node.state} (${label})` : node.state,
      node.nodeType === 'task' || node.nodeType === 'fan_out'
        ? `${node.attempts}/${node.maxAttempts}`
        : '-',
      node.errorKind ?? '-',
      timing(node, now),
      node.dependsOn.length === 0 ? '' : `<- ${node.dependsOn.join(', ')}`,
    ]);
    const items = steps.filter((s) => s.itemIndex !== null && s.node === node.node);
    if (node.nodeType === 'fan_out' && items.length > 0) {
      rows.push([`${'  '.repeat(depth)}· ${itemSummary(items)}`, '', '', '', '', '']);
    }
  }
  return table(['node', 'state', 'attempts', 'error kind', 'time', 'after'], rows, {
    width,
    shrink: [5, 4, 0],
  });
}
