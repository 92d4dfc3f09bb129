import type { Client } from '@cyclone/client';
import type { StepState } from '@cyclone/core';

/**
 * Why a node is in the state it is, and what would move it: the answer of `client.explain`
 * (the contract's shape, declared here so the server builds against clients that lack it).
 */
export interface NodeExplanation {
  readonly node: string;
  readonly state: StepState;
  /** A named sub-state (`AwaitingRetry`, `Late`, ...). */
  readonly label?: string;
  readonly reason:
    | 'ready'
    | 'running'
    | 'terminal'
    | 'dependencies'
    | 'signal'
    | 'timer'
    | 'child'
    | 'max_parallel'
    | 'paused'
    | 'backoff'
    | 'scheduled'
    | 'no_worker'
    | 'concurrency_cap';
  /** One sentence an operator can act on. */
  readonly message: string;
  /** Upstream nodes not completed, signal names not yet received. */
  readonly waitingOn?: readonly string[];
  /** When it changes by itself (backoff end, timer, max wait, lease expiry). */
  readonly until?: Date;
  /** Who holds the lease, when running. */
  readonly worker?: string;
}

/** A client that may have `explain`; older clients do not. */
type MaybeExplaining = Client & {
  explain?: (runId: string, node: string) => Promise<NodeExplanation>;
};

/**
 * `client.explain(runId, node)` when the client has it; undefined when it does not, so the route
 * can answer 501 instead of failing with a TypeError.
 */
export function explainer(
  client: Client,
): ((runId: string, node: string) => Promise<NodeExplanation>) | undefined {
  const explain = (client as MaybeExplaining).explain;
  return typeof explain === 'function'
    ? (runId, node) => explain.call(client, runId, node)
    : undefined;
}
