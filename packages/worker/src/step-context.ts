import type { Logger } from 'pino';
import type { ClaimedStep } from '@cyclone/store-postgres';
import type { StepAbort } from './step-abort.js';

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

/**
 * The context a handler gets for a claimed step. A class rather than an object literal with
 * getters: the getters live on the prototype, so a step's context is one object, not an object
 * with two fresh closures. `signal` and the child logger are made on first read (StepAbort, the
 * executor's `log`): most handlers never look.
 */
export class HandlerContext implements StepContext {
  readonly runId: string;
  readonly stepId: string;
  readonly node: string;
  readonly kind: string;
  readonly workflow: string;
  readonly input: unknown;
  readonly deps: Readonly<Record<string, unknown>>;
  readonly item: unknown;
  readonly index: number | undefined;
  readonly attempt: number;
  readonly #abort: StepAbort;
  readonly #log: () => Logger;

  constructor(step: ClaimedStep, abort: StepAbort, log: () => Logger) {
    this.runId = step.runId;
    this.stepId = step.id;
    this.node = step.node;
    this.kind = step.kind;
    this.workflow = step.workflow;
    this.input = step.input;
    this.deps = step.deps;
    this.item = step.item ?? undefined;
    this.index = step.itemIndex ?? undefined;
    this.attempt = step.attempts + 1;
    this.#abort = abort;
    this.#log = log;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get logger(): Logger {
    return this.#log();
  }
}
