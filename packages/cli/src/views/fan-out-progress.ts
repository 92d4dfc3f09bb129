import type { StepStatus } from '@cyclone/core';

/** How far a fan-out node has got, counted from its item tasks. */
export interface FanOutProgress {
  /** Item tasks completed, and how many there are. */
  readonly done: number;
  readonly total: number;
  /** Item tasks running now, and the node's `maxParallel` (null: no limit). */
  readonly running: number;
  readonly limit: number | null;
}

/**
 * The progress of each fan-out node of a run, by node name, from the steps `listSteps` returns
 * (the node's step and its item tasks). A node that has not expanded yet has 0 items.
 */
export function fanOutProgress(steps: readonly StepStatus[]): Map<string, FanOutProgress> {
  const progress = new Map<
    string,
    { done: number; total: number; running: number; limit: number | null }
  >();
  for (const step of steps) {
    if (step.nodeType === 'fan_out') {
      progress.set(step.node, { done: 0, total: 0, running: 0, limit: step.maxParallel });
    }
  }
  for (const step of steps) {
    const node = step.itemIndex === null ? undefined : progress.get(step.node);
    if (!node) continue;
    node.total += 1;
    if (step.state === 'completed') node.done += 1;
    if (step.state === 'running') node.running += 1;
  }
  return progress;
}

/** One line for an operator: `12/40 done, 4/4 running` (`3 running` without a limit). */
export function describeFanOut(p: FanOutProgress): string {
  const running = p.limit === null ? `${p.running} running` : `${p.running}/${p.limit} running`;
  return `${p.done}/${p.total} done, ${running}`;
}
