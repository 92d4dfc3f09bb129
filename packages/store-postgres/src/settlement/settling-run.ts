import type { RunState } from '@cyclone/core';
import type { NodeCompletions } from './complete-nodes.js';

/**
 * One run being settled, in the transaction that holds its lock: what the settlement learns as it
 * moves the run's nodes on. The run's state cannot change under the lock except by the
 * settlement's own completions, which report it, so the state is read once.
 */
export class SettlingRun {
  /** Other runs the settlement wrote to the outbox: a child run it started, this run's parent. */
  readonly followUps = new Set<string>();
  /** Set once a completion of the settlement completed the run: nothing of it moves any more. */
  ended = false;

  constructor(
    readonly id: string,
    /** The run's state when the settlement locked it: `running` or `paused`. */
    readonly state: RunState,
    /** The types of the run's nodes: fixed at submission, so read once, with the lock. */
    private readonly nodeTypes: ReadonlySet<string>,
    /** Whether a task node of the run has a result cache. */
    readonly hasCachedTasks: boolean,
  ) {}

  /** Whether the run has a node of any of `types`. */
  hasNodeOf(types: readonly string[]): boolean {
    return types.some((type) => this.nodeTypes.has(type));
  }

  /** Takes in what a completion statement reported about this run and the runs it marked. */
  absorb(completions: NodeCompletions): void {
    if (completions.ended.has(this.id)) this.ended = true;
    for (const id of completions.marked) if (id !== this.id) this.followUps.add(id);
  }
}
