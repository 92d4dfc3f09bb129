import type { ErrorKind } from './error-kind.js';
import type { RunState, StepState } from './states.js';

/**
 * What an operator or a caller can see of a run. Returned by `client.getRun`, `client.listRuns`
 * and `client.wait`.
 */
export interface RunStatus {
  readonly id: string;
  /** Workflow name, or the handler kind of a standalone job. */
  readonly workflow: string;
  readonly state: RunState;
  /** Error kind and message of the failure that failed the run; null otherwise. */
  readonly errorKind: ErrorKind | null;
  readonly error: string | null;
  /** The node whose discard failed the run. */
  readonly failedNode: string | null;
  /** For a child run: the run whose child node started it, and that node's step. */
  readonly parentRunId: string | null;
  readonly parentStepId: string | null;
  /**
   * The runs this run's child nodes started, in node order. Filled by `client.getRun`; the listings
   * (`listRuns`, `wait`) leave it out.
   */
  readonly children?: readonly ChildRunSummary[];
  readonly idempotencyKey: string | null;
  readonly deadlineAt: Date | null;
  /** Failed attempts over all steps (retryable and permanent failures). */
  readonly failureCount: number;
  /** Lease reclaims over all steps (crashed or stalled workers). */
  readonly reclaimCount: number;
  readonly createdAt: Date;
  /** When the first step started; null before that. */
  readonly startedAt: Date | null;
  /** When the run reached a terminal state; null before that. */
  readonly endedAt: Date | null;
  /** `endedAt - startedAt` in milliseconds, once both are known. */
  readonly totalRunTimeMs: number | null;
}

/** A child run as its parent's status shows it. */
export interface ChildRunSummary {
  /** The child run. */
  readonly runId: string;
  /** The parent's child node that started it. */
  readonly node: string;
  /** The parent node's step. */
  readonly stepId: string;
  /** The child run's state. */
  readonly state: RunState;
}

/** What an operator can see of one step. Returned by `client.listSteps`. */
export interface StepStatus {
  readonly id: string;
  readonly runId: string;
  readonly node: string;
  /** `task`, `item`, `fan_out`, `child`, `wait_signal`, `wait_any`, `wait_n` or `wait_timer`. */
  readonly nodeType: string;
  /** Handler kind; null for nodes no handler runs. */
  readonly kind: string | null;
  readonly state: StepState;
  /** Attempts that have ended; the attempt in flight is `attempts + 1`. */
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly reclaims: number;
  readonly error: string | null;
  readonly errorKind: ErrorKind | null;
  readonly panicStack: string | null;
  /** A wait node whose max wait lapsed. */
  readonly timedOut: boolean;
  /**
   * A task that completed with an output from its kind's result cache, without running: labelled
   * `Cached`.
   */
  readonly cached?: boolean;
  /**
   * An available step whose time has come but whose kind's concurrency cap (or its key's) is full,
   * or whose rate limit is used up for now: labelled `AwaitingResource`.
   */
  readonly awaitingResource?: boolean;
  /** The step's output once completed (JSON). */
  readonly output?: unknown;
  readonly dependsOn: readonly string[];
  /** Item tasks: the position in the fan-out list. */
  readonly itemIndex: number | null;
  /** Fan-out nodes: how many item tasks may be in progress at once; null means no limit. */
  readonly maxParallel: number | null;
  /** A child node: the child run it started (null before that, and for other nodes). */
  readonly childRunId: string | null;
  readonly scheduledAt: Date;
  readonly leaseExpiresAt: Date | null;
  readonly createdAt: Date;
  readonly startedAt: Date | null;
  readonly endedAt: Date | null;
  /** Signal waits: the signal names the node accepts (null for other nodes). */
  readonly waitSignals: readonly string[] | null;
  /** Signal waits: how many signals complete it (1, or a `waitN`'s quorum). */
  readonly waitN: number | null;
  /** Signal waits: how many signals it has gathered so far. */
  readonly waitGathered: number;
  /**
   * Signal waits and child nodes with a `maxWait`: when it lapses (a timer's fire time is
   * `scheduledAt`).
   */
  readonly waitDeadlineAt: Date | null;
  /**
   * A waiting node's time left, by the database clock: to its timer, or to its max wait (signal
   * waits and child nodes); null
   * when it is not waiting or waits without a limit.
   */
  readonly waitRemainingMs: number | null;
}

/** One entry of a run's history. Returned in order by `client.events`. */
export interface StepEvent {
  readonly id: number;
  readonly at: Date;
  readonly runId: string;
  /** Null for events of the run itself. */
  readonly stepId: string | null;
  readonly node: string | null;
  /** What happened, e.g. `step_completed`, `step_retry_scheduled`, `run_failed`, `wait_lapsed`. */
  readonly type: string;
  readonly from: string | null;
  readonly to: string | null;
  /**
   * The trigger of the transition table that made the move (`claim`, `complete`, `fail_fast`...):
   * with `from` and `to`, a row of `STEP_TRANSITIONS` (step events) or `RUN_TRANSITIONS` (run
   * events). Null on events recorded before Cyclone stored it.
   */
  readonly trigger: string | null;
  readonly errorKind: ErrorKind | null;
  /** Small facts for operators (attempt, delay, worker); never payloads. */
  readonly detail: Readonly<Record<string, unknown>> | null;
  /**
   * On an operator's move of a node (`client.forceStep`, trigger `force`) only: whether it was
   * forced past what the transition table does by itself.
   */
  readonly forced?: boolean;
  /** On an operator's move of a node only: the reason the operator gave. */
  readonly reason?: string;
}
