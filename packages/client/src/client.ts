import type pg from 'pg';
import {
  checkJobArgs,
  checkRunInput,
  isJobDeclaration,
  DefaultMaxReclaims,
  encodePayload,
  InputBytes,
  NotFoundError,
  parseWorkflowDefinition,
  schemasOf,
  toMilliseconds,
  ValidationError,
  type Duration,
  type JobArgsOf,
  type JobDeclaration,
  type JobResultOf,
  type ResultOf,
  type SubmitInputOf,
  type ValidationIssue,
  type WorkflowDefinition,
} from '@cyclone/core';
import {
  connectStore,
  isUuid,
  runOfDefinition,
  newJobs,
  type ClientStore,
  type NewRun,
  type PoolerMode,
  type SignalReceipt,
  type StoreLogger,
} from '@cyclone/store-postgres';
import {
  parseEnqueueOptions,
  parseKind,
  parseSignal,
  parseSubmitOptions,
  type EnqueueOptions,
  type SignalOptions,
  type SubmitOptions,
} from './options.js';
import type { RunId } from './run-id.js';
import { ScheduleApi } from './schedules.js';
import { RunInspection, RunWaiter } from './run-inspection.js';
import { traceSubmission } from './tracing.js';

/** How a {@link Client} reaches Postgres: its own pool from a URL, or a pool the application owns. */
export type ClientOptions = (
  | { readonly connectionString: string; readonly pool?: undefined }
  | { readonly pool: pg.Pool; readonly connectionString?: undefined }
) & {
  /**
   * Postgres schema of Cyclone's tables.
   * @defaultValue `'public'`
   */
  readonly schema?: string;
  /**
   * `'transaction'` when the connection goes through a pooler in transaction mode (PgBouncer
   * `pool_mode = transaction`, Supavisor's transaction port, RDS Proxy): statements are sent
   * unnamed, no session state is kept, and `wait` LISTENs only on `listenConnectionString`
   * (without one it polls every `waitPollInterval`). See docs/poolers.md.
   * @defaultValue `'none'` (a direct connection, or a pooler in session mode)
   */
  readonly pooler?: PoolerMode;
  /**
   * A direct (or session-mode) URL to LISTEN on, for `wait` and `result` (and a server's event
   * stream), when the connection goes through a transaction-mode pooler.
   * @defaultValue none: LISTEN on the main connection, or poll with `pooler: 'transaction'`
   */
  readonly listenConnectionString?: string;
  /**
   * Largest run input or job arguments, in bytes of UTF-8 JSON.
   * @defaultValue `InputBytes` (1 MiB)
   */
  readonly maxInputBytes?: number;
  /**
   * How often `wait` polls in case a notification was missed (with `pooler: 'transaction'` and
   * no `listenConnectionString`, how soon it sees a run's end).
   * @defaultValue `'1s'`
   */
  readonly waitPollInterval?: Duration;
  /**
   * A worker that has not refreshed its registration for this long counts as gone, for
   * {@link Client.explain}'s `no_worker` (the scheduler's `workerLiveness`).
   * @defaultValue `'30s'`
   */
  readonly workerLiveness?: Duration;
  /**
   * Where the client reports what it cannot return to a caller: a follow-up settlement that
   * failed after its operation committed (the run stays in the settlement outbox and the
   * scheduler's `settle-pending` scanner settles it). A pino logger fits.
   * @defaultValue a process warning (`process.emitWarning`, code `CYCLONE_STORE`)
   */
  readonly logger?: StoreLogger;
};

/**
 * `submit`'s arguments after the definition: the input its schema takes (optional when the
 * definition declares none, as before types), then the options.
 */
export type SubmitArguments<D> =
  undefined extends SubmitInputOf<D>
    ? [input?: SubmitInputOf<D>, options?: SubmitOptions]
    : [input: SubmitInputOf<D>, options?: SubmitOptions];

/** An issue of `submitMany`'s input `i`: a list path gains the input's position first. */
function prefixed(i: number, path: ValidationIssue['path']): ValidationIssue['path'] {
  return typeof path === 'string' ? `inputs[${i}].${path}` : [i, ...path];
}

/**
 * Each value checked by `check` (a schema's check, which throws a ValidationError): the checked
 * values, or one ValidationError for all of them, each issue's path starting with its position.
 */
async function checkEach(
  values: readonly unknown[],
  check: (value: unknown) => Promise<unknown>,
  subject: string,
): Promise<unknown[]> {
  const issues: ValidationIssue[] = [];
  const checked: unknown[] = [];
  for (const [i, value] of values.entries()) {
    try {
      checked.push(await check(value));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      issues.push(...error.issues.map((issue) => ({ ...issue, path: prefixed(i, issue.path) })));
    }
  }
  if (issues.length > 0) throw new ValidationError(subject, issues);
  return checked;
}

/**
 * `enqueue`'s arguments after a job declaration: the arguments its input schema takes (optional
 * when it declares none), then the options.
 */
export type EnqueueArguments<J> =
  undefined extends JobArgsOf<J>
    ? [args?: JobArgsOf<J>, options?: EnqueueOptions]
    : [args: JobArgsOf<J>, options?: EnqueueOptions];

/** What `submit` and `enqueue` return; `Result` is the run's result type (see `result`). */
export interface Submitted<Result = Record<string, unknown>> {
  readonly runId: RunId<Result>;
  /** False when an existing run with the same idempotency key was returned. */
  readonly created: boolean;
}

/**
 * Submits, inspects and waits for Cyclone runs. Embeds in any service: it pulls in no worker,
 * scheduler or CLI code.
 *
 * @example
 * ```ts
 * import { workflow } from '@cyclone/core';
 * import { Client } from '@cyclone/client';
 *
 * const order = workflow('order').task('charge', 'payments.charge').build();
 * const client = new Client({ connectionString: process.env.CYCLONE_DATABASE_URL! });
 * const { runId } = await client.submit(order, { orderId: 42 });
 * const run = await client.wait(runId, { timeout: '1m' });
 * console.log(run.state); // 'completed'
 * await client.close();
 * ```
 */
export class Client extends RunInspection {
  /** The store every call goes through. */
  readonly store: ClientStore;
  private readonly closeConnection: () => Promise<void>;
  private readonly maxInputBytes: number;
  protected readonly waiter: RunWaiter;
  protected readonly workerLivenessMs: number;
  protected readonly schedules: ScheduleApi;

  constructor(options: ClientOptions) {
    // An idle connection that fails (a server restart, a failover) is reported on the pool; the
    // pool has already dropped it and opens a new one on demand, so there is nothing more to do
    // than not crash (connectStore's default).
    super();
    const connection = connectStore(options, 'client options');
    this.store = connection.store;
    this.closeConnection = connection.close;
    this.maxInputBytes = options.maxInputBytes ?? InputBytes;
    this.schedules = new ScheduleApi(this.store, this.maxInputBytes);
    this.workerLivenessMs = toMilliseconds(options.workerLiveness ?? '30s', 'workerLiveness');
    this.waiter = new RunWaiter(
      this.store,
      toMilliseconds(options.waitPollInterval ?? '1s', 'waitPollInterval'),
    );
  }

  /**
   * Starts a run of a workflow. The run and all of its steps are inserted in one transaction (the
   * caller's own with `tx`), so a run is never half-written; bad input is refused with a
   * `ValidationError` before anything is written. When the definition declares an input schema
   * (`workflow(name, { input })`), TypeScript checks `input` against it and `submit` validates it
   * first, storing the schema's value; its issues carry their paths as lists of keys. The same
   * holds for the input schemas of child workflows the definition names by definition.
   *
   * @returns the run's id, typed with the run's result for `result` and `run(runId).result()`
   */
  async submit<const D extends WorkflowDefinition>(
    definition: D,
    ...[input, options]: SubmitArguments<D>
  ): Promise<Submitted<ResultOf<D>>> {
    const [submitted] = await this.submitRuns(definition, [input], options, false);
    return submitted!;
  }

  /**
   * Starts many runs of one workflow in a single statement. With `idempotencyKey`, the key is
   * suffixed with each input's position (`key:0`, `key:1`, ...), however many inputs there are.
   * Every input is validated against the definition's schema, as by `submit`, before any is written.
   */
  async submitMany<const D extends WorkflowDefinition>(
    definition: D,
    inputs: readonly SubmitInputOf<D>[],
    options?: SubmitOptions,
  ): Promise<Submitted<ResultOf<D>>[]> {
    return this.submitRuns(definition, inputs, options, true);
  }

  private async submitRuns(
    definition: WorkflowDefinition,
    inputs: readonly unknown[],
    options: SubmitOptions | undefined,
    many: boolean,
  ): Promise<Submitted[]> {
    const opts = parseSubmitOptions(options);
    // The schemas ride on the built object the caller holds; parsing makes a plain copy.
    const values = await this.checkInputs(definition, inputs, many);
    const def = parseWorkflowDefinition(definition);
    const attributes = { workflow: def.name, runs: inputs.length };
    return traceSubmission('cyclone.submit', attributes, (traceContext) => {
      const runs = values.map((input, i) =>
        runOfDefinition(def, this.encodeInput(input, many ? `inputs[${i}]` : 'input'), {
          ...this.runOptions(opts, many ? i : undefined),
          traceContext,
        }),
      );
      return this.insert(runs, opts.tx);
    });
  }

  /** Inputs validated against the definition's schemas: the values to store, or one refusal for all. */
  private async checkInputs(
    definition: WorkflowDefinition,
    inputs: readonly unknown[],
    many: boolean,
  ): Promise<unknown[]> {
    if (schemasOf(definition) === undefined) return [...inputs];
    const name = JSON.stringify(definition.name);
    if (!many) return [await checkRunInput(definition, inputs[0], `input of workflow ${name}`)];
    return checkEach(
      inputs,
      (input) => checkRunInput(definition, input),
      `inputs of workflow ${name}`,
    );
  }

  /**
   * Enqueues a standalone job: a run of one step of handler `kind`, named after its kind. Given a
   * job declaration (`job(kind, { input, output })`) instead of a kind, `args` is typed by its
   * input schema and validated against it first, as `submit` validates a run's input (a
   * `ValidationError` writes nothing), the schema's value is stored, and the run id carries the
   * job's result type (`{ [kind]: output }`).
   */
  enqueue(kind: string, args?: unknown, options?: EnqueueOptions): Promise<Submitted>;
  enqueue<const J extends JobDeclaration>(
    job: J,
    ...[args, options]: EnqueueArguments<J>
  ): Promise<Submitted<JobResultOf<J>>>;
  async enqueue(
    kindOrJob: string | JobDeclaration,
    args?: unknown,
    options?: EnqueueOptions,
  ): Promise<Submitted> {
    const [submitted] = await this.enqueueJobs(kindOrJob, [args], options, false);
    return submitted!;
  }

  /**
   * Enqueues many jobs of one kind in a single statement. With `idempotencyKey`, the key is
   * suffixed with each job's position (`key:0`, `key:1`, ...). Given a job declaration, every
   * job's arguments are validated first, and all are refused together.
   */
  enqueueMany(
    kind: string,
    argsList: readonly unknown[],
    options?: EnqueueOptions,
  ): Promise<Submitted[]>;
  enqueueMany<const J extends JobDeclaration>(
    job: J,
    argsList: readonly JobArgsOf<J>[],
    options?: EnqueueOptions,
  ): Promise<Submitted<JobResultOf<J>>[]>;
  async enqueueMany(
    kindOrJob: string | JobDeclaration,
    argsList: readonly unknown[],
    options?: EnqueueOptions,
  ): Promise<Submitted[]> {
    return this.enqueueJobs(kindOrJob, argsList, options, true);
  }

  /** Jobs' arguments validated against a declaration's input schema: the values to store, or one refusal for all. */
  private async checkArgs(
    declaration: JobDeclaration,
    argsList: readonly unknown[],
    many: boolean,
  ): Promise<unknown[]> {
    if (!many) return [await checkJobArgs(declaration, argsList[0])];
    const subject = `arguments of jobs ${JSON.stringify(declaration.kind)}`;
    return checkEach(argsList, (args) => checkJobArgs(declaration, args), subject);
  }

  private async enqueueJobs(
    kindOrJob: string | JobDeclaration,
    argsList: readonly unknown[],
    options: EnqueueOptions | undefined,
    many: boolean,
  ): Promise<Submitted[]> {
    const declaration = isJobDeclaration(kindOrJob) ? kindOrJob : undefined;
    const validKind = parseKind(declaration ? declaration.kind : kindOrJob);
    const opts = parseEnqueueOptions(options);
    // A Date is stored as given; a duration counts from the database's clock, like every time.
    const runAt = opts.scheduledAt instanceof Date ? opts.scheduledAt : null;
    const delayMs =
      opts.scheduledAt === undefined || opts.scheduledAt instanceof Date
        ? null
        : toMilliseconds(opts.scheduledAt, 'scheduledAt');
    const attributes = { workflow: validKind, runs: argsList.length };
    // What the jobs share is worked out once; each job costs its arguments' encoding and two ids.
    const shared = {
      ...this.runOptions(opts, undefined),
      suffixKeys: many,
      maxAttempts: opts.maxAttempts,
      timeoutMs: opts.timeout === undefined ? null : toMilliseconds(opts.timeout, 'timeout'),
      delayMs,
      runAt,
    };
    const values = declaration ? await this.checkArgs(declaration, argsList, many) : argsList;
    const argsJson = values.map((args, i) => this.encodeInput(args, many ? `args[${i}]` : 'args'));
    if (argsJson.length === 0) return [];
    return traceSubmission('cyclone.enqueue', attributes, async (traceContext) => {
      const jobs = newJobs(validKind, argsJson, { ...shared, traceContext });
      const result = await this.store.enqueue(jobs, opts.tx);
      return result.map((r) => ({ runId: r.runId, created: r.created }));
    });
  }

  private runOptions(opts: SubmitOptions, index: number | undefined) {
    return {
      idempotencyKey:
        opts.idempotencyKey === undefined
          ? null
          : index === undefined
            ? opts.idempotencyKey
            : `${opts.idempotencyKey}:${index}`,
      deadlineMs:
        opts.runDeadline === undefined ? null : toMilliseconds(opts.runDeadline, 'runDeadline'),
      maxReclaims: opts.maxReclaims ?? DefaultMaxReclaims,
      concurrencyKey: opts.concurrencyKey ?? null,
      priority: opts.priority ?? 0,
    };
  }

  private encodeInput(value: unknown, path: string): string {
    return encodePayload(value === undefined ? null : value, {
      maxBytes: this.maxInputBytes,
      subject: path.startsWith('args') ? 'job arguments' : 'run input',
      path,
    });
  }

  private async insert(runs: readonly NewRun[], tx: SubmitOptions['tx']): Promise<Submitted[]> {
    if (runs.length === 0) return [];
    const result = await this.store.submit(runs, tx);
    return result.map((r) => ({ runId: r.runId, created: r.created }));
  }

  /**
   * Sends a signal to a run. A node that waits for `name` consumes it at once (a `waitSignal`,
   * `waitAny` or `waitN` node, in declaration order); when none waits yet, the signal is kept and
   * the first node that waits for it consumes it. With `id`, the same signal sent twice is
   * delivered once (`duplicate: true` the second time). The payload is stored as JSON, like an
   * input, and reaches downstream nodes in the wait's output (`ctx.deps`).
   *
   * @throws ValidationError when `name` is not a valid signal name, `id` is not well-formed text,
   *   or `payload` cannot be stored as JSON; nothing is written
   * @throws NotFoundError for an unknown run
   * @throws AlreadyTerminalError for a completed, failed or cancelled run; nothing is written
   */
  async signal(
    runId: string,
    name: string,
    payload?: unknown,
    options?: SignalOptions,
  ): Promise<SignalReceipt> {
    const signal = parseSignal(name, payload, options, this.maxInputBytes);
    if (!isUuid(runId)) throw new NotFoundError('run', String(runId));
    return this.store.signal({ runId, ...signal });
  }

  /** Closes the client's connections (a pool it was given stays open). */
  async close(): Promise<void> {
    await this.waiter.close();
    await this.closeConnection();
  }
}
