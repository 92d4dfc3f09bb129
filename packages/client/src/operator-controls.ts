import { NotFoundError, parseNodeMove, type ForceStepOptions } from '@cyclone/core';
import {
  isUuid,
  type ClientStore,
  type ExhaustedPage,
  type ExhaustedQuery,
  type ForcedMove,
  type RedriveQuery,
  type RedriveResult,
} from '@cyclone/store-postgres';
import { parseExhaustedQuery, parseRedriveQuery } from './operator-queries.js';
import { parseLookupName } from './options.js';

/** A run id that cannot name a run is an unknown run: refused before it reaches SQL. */
export function knownRunId(runId: string): string {
  if (!isUuid(runId)) throw new NotFoundError('run', String(runId));
  return runId;
}

/**
 * The operator side of the {@link Client}: cancel, retry, pause and resume runs, and read and
 * redrive the DLQ. Each action is one transaction that takes the run's lock first; a refused one
 * throws an operator error carrying the rule's `reason` and changes nothing.
 */
export abstract class OperatorControls {
  /** The store every call goes through. */
  abstract readonly store: ClientStore;

  /**
   * Cancels a running or paused run: every non-terminal step (and a waiting child node's child
   * run) and the run, in one transaction; running handlers' `ctx.signal` aborts at once.
   *
   * @throws NotFoundError for an unknown run; AlreadyTerminalError (`reason` terminal)
   */
  async cancel(runId: string): Promise<void> {
    await this.store.cancelRun(knownRunId(runId));
  }

  /**
   * Retries a discarded node (by node name or step id): back to available with its attempts
   * kept, and the steps its discard cancelled reopened; a failed run runs again.
   *
   * @throws NotFoundError for an unknown run or node; NoExhaustedNodeError (with `reason`)
   */
  async retry(runId: string, nodeOrStepId: string): Promise<void> {
    parseLookupName(nodeOrStepId, 'retry', 'node');
    await this.store.retryRun(knownRunId(runId), { node: nodeOrStepId });
  }

  /** Retries every discarded node of a run. @throws NotFoundError, NoExhaustedNodeError */
  async retryAll(runId: string): Promise<void> {
    await this.store.retryRun(knownRunId(runId), { all: true });
  }

  /**
   * Moves one node by hand to `completed` (with `output`, which its dependents read from
   * `ctx.deps`), `discarded` (error kind `permanent`, listed in the DLQ) or `cancelled` (its
   * dependents are branch-cancelled), from any state it has not ended in; the run goes on as if
   * the node had got there by itself. A running handler is aborted and its late result dropped; a
   * fan-out node's open item tasks and a child node's child run are cancelled. The move's event
   * records `forced: true` and `reason`. With `force: false` only a move the transition table
   * makes by itself is applied. The same move twice within a second is refused as `duplicate`.
   *
   * @example
   * ```ts
   * await client.forceStep(runId, 'charge', { to: 'completed', output: { id: 'ch_1' }, reason: 'charged by hand' });
   * ```
   * @throws ValidationError naming `to`, `reason`, `output` or `force`, nothing written;
   *   NotFoundError for an unknown run or node; AlreadyTerminalError for a terminal run;
   *   TransitionRefusedError (`TRANSITION_REFUSED`) with the rule's `reason`
   */
  async forceStep(runId: string, node: string, options: ForceStepOptions): Promise<ForcedMove> {
    parseLookupName(node, 'forceStep', 'node');
    const move = parseNodeMove('forceStep', options);
    return this.store.forceStep(knownRunId(runId), node, move);
  }

  /**
   * The DLQ: discarded steps newest first, by reason (their error kind) and workflow; follow
   * `nextCursor` for more.
   *
   * @throws ValidationError naming a bad reason, workflow, limit or cursor
   */
  async listExhausted(query: ExhaustedQuery = {}): Promise<ExhaustedPage> {
    return this.store.listExhausted(parseExhaustedQuery(query));
  }

  /**
   * Retries every matching discarded step as `retry` would, one transaction per run; runs that
   * refuse (paused, completed) are skipped. @throws ValidationError for a bad query
   */
  async redrive(query: RedriveQuery = {}): Promise<RedriveResult> {
    return this.store.redrive(parseRedriveQuery(query));
  }
}
