import type { ErrorKind, NodeMoveRequest, NodeMoveTarget, StepState } from '@cyclone/core';

/** The error kinds a discarded step can carry: the DLQ's reasons. */
export type ExhaustedReason = Extract<
  ErrorKind,
  'retryable' | 'permanent' | 'deadline' | 'reclaim_limit'
>;

/** Filters of {@link OperatorCommands.listExhausted}. */
export interface ExhaustedQuery {
  readonly reason?: ExhaustedReason;
  readonly workflow?: string;
  /** @defaultValue 50 (at most 1000) */
  readonly limit?: number;
  /** The `nextCursor` of the previous page. */
  readonly cursor?: string;
}

/** One entry of the DLQ: a discarded (exhausted) step. */
export interface ExhaustedStep {
  /** Why it was discarded: its error kind. */
  readonly reason: ExhaustedReason;
  readonly runId: string;
  readonly workflow: string;
  readonly node: string;
  readonly stepId: string;
  readonly kind: string | null;
  /** An item task's position in its fan-out node's list; null for a node. */
  readonly itemIndex: number | null;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly error: string | null;
  readonly endedAt: Date;
}

/** One page of the DLQ. */
export interface ExhaustedPage {
  readonly steps: ExhaustedStep[];
  /** Pass as `cursor` for the next page; absent on the last page. */
  readonly nextCursor?: string;
}

/** Filters of {@link OperatorCommands.redrive}. */
export interface RedriveQuery {
  readonly reason?: ExhaustedReason;
  readonly workflow?: string;
  /** Only steps discarded before this time. */
  readonly before?: Date;
  /** Most steps retried. @defaultValue 1000 */
  readonly limit?: number;
}

/** What {@link OperatorCommands.redrive} did. */
export interface RedriveResult {
  /** Steps moved `discarded -> available`. */
  readonly retried: number;
  /** The runs they belong to. */
  readonly runs: string[];
}

/** What a retry names: one node (by name or step id) or every discard of the run. */
export type RetryRequest = { readonly node: string } | { readonly all: true };

/** What an operator's move of one node did (`client.forceStep`). */
export interface ForcedMove {
  readonly runId: string;
  readonly node: string;
  readonly stepId: string;
  /** The node's state before the move. */
  readonly from: StepState;
  readonly to: NodeMoveTarget;
  /** Whether the move was forced (recorded `forced: true` on its event). */
  readonly forced: boolean;
}

/**
 * An operator's actions on runs. Each is one transaction that takes the run's lock first and
 * applies core's table; a refused action throws the operator error (with the rule's `reason`) and
 * changes nothing.
 */
export interface OperatorCommands {
  /** Cancels a running or paused run and its open steps (and waiting child nodes' runs). */
  cancelRun(runId: string): Promise<void>;
  /** Retries a discarded node, or every discard of the run. */
  retryRun(runId: string, request: RetryRequest): Promise<{ retried: number; reopened: number }>;
  /** Pauses a running run. */
  pauseRun(runId: string): Promise<void>;
  /** Resumes a paused run. */
  resumeRun(runId: string): Promise<void>;
  /**
   * Moves one node to `completed`, `discarded` or `cancelled` by hand (a checked request, see
   * core's `parseNodeMove`); the run goes on as if the node had got there by itself.
   */
  forceStep(runId: string, node: string, move: NodeMoveRequest): Promise<ForcedMove>;
  /** The DLQ, one page at a time. */
  listExhausted(query?: ExhaustedQuery): Promise<ExhaustedPage>;
  /** Retries every matching discarded step, one transaction per run. */
  redrive(query?: RedriveQuery): Promise<RedriveResult>;
}
