import type pg from 'pg';
import type { Logger } from 'pino';
import type { ClaimedStep, Queryable } from '@cyclone/store-postgres';
import type { StepAbort } from './step-abort.js';
import { StepTransaction, type StepTransactionDeps } from './step-transaction.js';

/**
 * What a handler receives. Its return value is the step's output (JSON); a thrown error is
 * retryable, `throw permanent(err)` discards the step, `throw snooze(d)` runs the same attempt
 * later.
 */
export interface StepContext<
  Input = unknown,
  Item = unknown,
  Deps extends Readonly<Record<string, unknown>> = Readonly<Record<string, unknown>>,
> {
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
  readonly deps: Deps;
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
  /**
   * Runs `fn` inside a transaction on a connection to Cyclone's database (`tx`, a pg client after
   * `BEGIN`), then writes this step's completion, with what `fn` returned as its output, in that
   * same transaction, fenced by the step's claim, and commits: the writes `fn` made and the
   * completion commit together or not at all. Resolves with what `fn` returned, which the
   * handler normally returns too (once committed, what the handler returns or throws is not
   * recorded; a throw is logged).
   *
   * When `fn` throws, everything rolls back and the error is rethrown: the attempt fails like any
   * handler error (retried with backoff, or discarded). When the fence refuses (the step was
   * cancelled, forced, reclaimed, or its lease lost while `fn` ran), everything rolls back and
   * it rejects with `StepFencedError` (`STEP_FENCED`). When the node declares an output schema
   * that refuses `fn`'s result, everything rolls back and it rejects with that `ValidationError`,
   * which fails the attempt as permanent if the handler lets it through. Work enqueued or submitted with
   * `{ tx }` inside `fn` exists if and only if the step completes. The transaction holds a
   * connection while `fn` runs (see the worker's pool sizing); do not `COMMIT`, `ROLLBACK` or
   * release `tx` yourself. Once an attempt.
   */
  transaction<T>(fn: (tx: pg.PoolClient) => Promise<T> | T): Promise<T>;
  /**
   * Writes this step's completion, with `output` (resolved with it), inside a transaction the
   * application opened and will commit (a pg client after `BEGIN`: node-postgres, or the client
   * under an ORM's transaction), fenced by the step's claim. Commit before the handler returns:
   * the step is completed exactly when that transaction commits. Rejects with `StepFencedError`
   * when the fence refuses, and with a `ValidationError` (writing nothing) when the node's output
   * schema refuses `output`; then roll back. If the application rolls back instead, the handler's
   * own return or throw decides the attempt, as without this call. Once an attempt.
   */
  completeWithin<T>(tx: Queryable, output: T): Promise<T>;
}

/**
 * What the handler of a task node of a typed definition receives (see `handlersFor`): the run
 * input and the outputs of exactly the node's declared dependencies, typed.
 */
export type TaskContext<Input, Deps extends Readonly<Record<string, unknown>>> = StepContext<
  Input,
  undefined,
  Deps
> & { readonly item: undefined; readonly index: undefined };

/**
 * What the handler of a fan-out node's item tasks receives (see `handlersFor`): the run input and
 * its item, an element of the source node's output; `deps` is empty.
 */
export type ItemContext<Input, Item> = StepContext<Input, Item, Readonly<Record<never, never>>> & {
  readonly item: Item;
  readonly index: number;
};

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
  readonly #step: ClaimedStep;
  readonly #transactions: StepTransactionDeps;
  /** Made on the first `transaction` or `completeWithin`; read by the executor afterwards. */
  transactional: StepTransaction | undefined;

  constructor(
    step: ClaimedStep,
    abort: StepAbort,
    log: () => Logger,
    transactions: StepTransactionDeps,
  ) {
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
    this.#step = step;
    this.#transactions = transactions;
  }

  transaction<T>(fn: (tx: pg.PoolClient) => Promise<T> | T): Promise<T> {
    return this.#transactional().transaction(fn);
  }

  completeWithin<T>(tx: Queryable, output: T): Promise<T> {
    return this.#transactional().completeWithin(tx, output);
  }

  #transactional(): StepTransaction {
    return (this.transactional ??= new StepTransaction(this.#step, this.#transactions, this.#log));
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get logger(): Logger {
    return this.#log();
  }
}
