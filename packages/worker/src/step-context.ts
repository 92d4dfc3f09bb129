import type { Logger } from 'pino';

/**
 * What a handler receives. Its return value is the step's output (JSON); a thrown error is
 * retryable, `throw permanent(err)` discards the step, `throw snooze(d)` runs the same attempt
 * later.
 */
export interface StepContext<Input = unknown, Item = unknown> {
  readonly runId: string;
  readonly stepId: string;
  /** The node's name; for a standalone job, its kind. */
  readonly node: string;
  /** The handler kind. */
  readonly kind: string;
  /** The workflow's name (the kind, for a standalone job). */
  readonly workflow: string;
  /** The run input, or the job's arguments. */
  readonly input: Input;
  /** Outputs of the upstream nodes, by node name; empty for a fan-out item task (see `item`). */
  readonly deps: Readonly<Record<string, unknown>>;
  /** Item tasks of a fan-out node: the element of the list and its position. */
  readonly item: Item | undefined;
  readonly index: number | undefined;
  /** 1-based number of this attempt. */
  readonly attempt: number;
  /**
   * Aborts when the step should stop: the run was cancelled or failed fast, the run deadline
   * passed, the lease was lost, the timeout fired, or the worker's shutdown timeout ran out.
   */
  readonly signal: AbortSignal;
  /** A child of the worker's logger with the run, step and node bound. */
  readonly logger: Logger;
}

/** A step handler. */
export type Handler<Input = unknown, Output = unknown> = (
  ctx: StepContext<Input>,
) => Promise<Output> | Output;
