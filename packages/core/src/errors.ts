import { formatPath, type PathKey } from './standard-schema.js';

/**
 * Every error Cyclone raises on purpose extends {@link CycloneError} and carries a stable string
 * `code`, so callers can branch on it even when two copies of the library are installed (an
 * `instanceof` across copies is unreliable; use {@link isCycloneError} or compare `code`).
 */

/** Options shared by every Cyclone error. */
export interface CycloneErrorOptions {
  /** The error that caused this one. */
  readonly cause?: unknown;
  /**
   * For a refused operator action: the rule's rejection reason (`terminal`, `invalid-entry`, ...),
   * so an HTTP API can answer 409 with `{ code, reason, message }`.
   */
  readonly reason?: string;
}

/**
 * Marks Cyclone's own errors. `Symbol.for` gives every installed copy of the library the same
 * symbol, so the brand survives two copies where `instanceof` does not, and an error that merely
 * has a string `code` (a driver's `ECONNREFUSED`, a SQLSTATE) does not carry it.
 */
const CYCLONE_ERROR_BRAND = Symbol.for('@cyclone/core/error');

/** The base class of every error Cyclone raises on purpose. */
export abstract class CycloneError extends Error {
  /** A stable machine-readable code, e.g. `ALREADY_TERMINAL`. */
  abstract readonly code: string;
  /** Why a refused operator action was refused (the rule's rejection reason); absent otherwise. */
  readonly reason?: string;

  constructor(message: string, options?: CycloneErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.reason !== undefined) this.reason = options.reason;
    this.name = new.target.name;
    // Not enumerable: the brand stays out of serialised errors and structural comparisons.
    Object.defineProperty(this, CYCLONE_ERROR_BRAND, { value: true });
  }
}

/**
 * Whether a value is an error Cyclone raised (of any installed copy of the library), optionally
 * with a given code. Errors of other libraries are not, whatever `code` they carry.
 */
export function isCycloneError(value: unknown, code?: string): value is CycloneError {
  if (typeof value !== 'object' || value === null) return false;
  if ((value as Record<symbol, unknown>)[CYCLONE_ERROR_BRAND] !== true) return false;
  const candidate = (value as { code?: unknown }).code;
  if (typeof candidate !== 'string') return false;
  return code === undefined || candidate === code;
}

/** The operation needs a run that is not terminal, and the run is `completed`, `failed` or `cancelled`. */
export class AlreadyTerminalError extends CycloneError {
  readonly code = 'ALREADY_TERMINAL';
  constructor(
    readonly runId: string,
    readonly state: string,
    options?: CycloneErrorOptions,
  ) {
    super(`run ${runId} is already terminal (state ${state})`, options);
  }
}

/** `retry` named a node or step that is not an exhausted (`discarded`) step, or the run has none. */
export class NoExhaustedNodeError extends CycloneError {
  readonly code = 'NO_EXHAUSTED_NODE';
  constructor(
    readonly runId: string,
    readonly node: string | undefined,
    options?: CycloneErrorOptions,
  ) {
    super(
      node === undefined
        ? `run ${runId} has no exhausted (discarded) node to retry`
        : `node ${node} of run ${runId} is not an exhausted (discarded) step`,
      options,
    );
  }
}

/** A retry would reopen a child node whose child run completed without a result for the node. */
export class ChildNotRetryableError extends CycloneError {
  readonly code = 'CHILD_NOT_RETRYABLE';
  constructor(
    readonly runId: string,
    readonly node: string,
    readonly childRunId: string,
    options?: CycloneErrorOptions,
  ) {
    super(
      `child node ${node} of run ${runId} cannot be retried: child run ${childRunId} completed without a result for it`,
      options,
    );
  }
}

/** `pause` on a run that is already paused. */
export class AlreadyPausedError extends CycloneError {
  readonly code = 'ALREADY_PAUSED';
  constructor(
    readonly runId: string,
    options?: CycloneErrorOptions,
  ) {
    super(`run ${runId} is already paused`, options);
  }
}

/** `resume` on a run that is not paused. */
export class NotPausedError extends CycloneError {
  readonly code = 'NOT_PAUSED';
  constructor(
    readonly runId: string,
    readonly state: string,
    options?: CycloneErrorOptions,
  ) {
    super(`run ${runId} is not paused (state ${state})`, options);
  }
}

/** An unknown run, step or schedule id, or a kind without the flow limit named. */
export class NotFoundError extends CycloneError {
  readonly code = 'NOT_FOUND';
  constructor(
    readonly entity:
      | 'run'
      | 'step'
      | 'schedule'
      | 'node'
      | 'workflow'
      | 'concurrency limit'
      | 'rate limit'
      | 'fair share',
    readonly id: string,
    options?: CycloneErrorOptions,
  ) {
    super(`${entity} ${id} not found`, options);
  }
}

/** One problem found while validating input: where it is, what is wrong, what was expected. */
export interface ValidationIssue {
  /**
   * Where the problem is: a dot path for Cyclone's own checks (`nodes.charge.options.maxAttempts`),
   * or, for a value a workflow's or node's schema refused, the schema's path as a list of keys
   * from the value's root (`['orderId']`, `['items', 0, 'sku']`).
   */
  readonly path: string | readonly PathKey[];
  /** What is wrong, including what was expected. */
  readonly message: string;
}

/** Input that Cyclone refuses at its boundary: a bad definition, option, payload or argument. Nothing was written. */
export class ValidationError extends CycloneError {
  readonly code = 'VALIDATION';
  constructor(
    /** What was being validated, e.g. `workflow "order"` or `submit input`. */
    readonly subject: string,
    readonly issues: readonly ValidationIssue[],
    options?: CycloneErrorOptions,
  ) {
    super(
      `invalid ${subject}: ${issues.map((i) => (issuePath(i) ? `${issuePath(i)}: ${i.message}` : i.message)).join('; ')}`,
      options,
    );
  }
}

/** An issue's path as text: a dot path as it is, a list of keys as `items[0].sku`. */
function issuePath(issue: ValidationIssue): string {
  return typeof issue.path === 'string' ? issue.path : formatPath(issue.path);
}

/** A proposed transition that the table does not allow. */
export class TransitionRejectedError extends CycloneError {
  readonly code = 'TRANSITION_REJECTED';
  constructor(
    readonly entity: 'run' | 'step',
    readonly from: string | null,
    readonly to: string,
    override readonly reason: string,
    options?: CycloneErrorOptions,
  ) {
    super(`${entity} transition ${from ?? '(inserted)'} -> ${to} rejected: ${reason}`, options);
  }
}

/**
 * An operator's move of one node (`client.forceStep`) that the rules refuse: without `force`, a move
 * the transition table does not make by itself, a node that has ended already, or the same move
 * again within a second (`duplicate`). `reason` is the rule's reason. Nothing was written.
 */
export class TransitionRefusedError extends CycloneError {
  readonly code = 'TRANSITION_REFUSED';
  constructor(
    readonly runId: string,
    readonly node: string,
    readonly from: string,
    readonly to: string,
    override readonly reason: string,
    options?: CycloneErrorOptions,
  ) {
    super(`node ${node} of run ${runId}: ${from} -> ${to} refused (${reason})`, options);
  }
}

/** `result` on a run that ended without completing: it failed or was cancelled. */
export class RunFailedError extends CycloneError {
  readonly code = 'RUN_FAILED';
  constructor(
    readonly runId: string,
    readonly state: string,
    readonly errorKind: string | null,
    readonly failedNode: string | null,
    readonly error: string | null,
    options?: CycloneErrorOptions,
  ) {
    super(
      `run ${runId} ${state}${failedNode ? ` at node ${failedNode}` : ''}${errorKind ? ` (${errorKind})` : ''}${error ? `: ${error}` : ''}`,
      options,
    );
  }
}

/** `wait` (or `result`) gave up before the run reached a terminal state. */
export class WaitTimeoutError extends CycloneError {
  readonly code = 'WAIT_TIMEOUT';
  constructor(
    readonly runId: string,
    readonly timeoutMs: number,
    readonly state: string,
    options?: CycloneErrorOptions,
  ) {
    super(`run ${runId} is still ${state} after ${timeoutMs}ms`, options);
  }
}

/**
 * Postgres could not be reached: the connection was refused, timed out, or the host is unknown.
 * `cause` is the driver's error.
 */
export class DatabaseUnreachableError extends CycloneError {
  readonly code = 'DATABASE_UNREACHABLE';
  constructor(
    /** The database as the caller named it, with any password hidden. */
    readonly target: string,
    /** The driver's reason, e.g. `ECONNREFUSED` or `connection timeout`. */
    override readonly reason: string,
    options?: CycloneErrorOptions,
  ) {
    super(`cannot reach the database at ${target}: ${reason}`, options);
  }
}

/** A connection string that is not a PostgreSQL URL (`postgres://` or `postgresql://`). */
export class InvalidDatabaseUrlError extends CycloneError {
  readonly code = 'INVALID_DATABASE_URL';
  constructor(
    /** Where the URL was given, e.g. `worker options.connectionString`. */
    readonly where: string,
    /** What is wrong with it. */
    readonly problem: string,
    options?: CycloneErrorOptions,
  ) {
    super(
      `invalid database URL in ${where}: ${problem}; expected postgres://user:password@host:port/database`,
      options,
    );
  }
}

/** The database lacks Cyclone's tables, or a migration this version ships. */
export class SchemaNotMigratedError extends CycloneError {
  readonly code = 'SCHEMA_NOT_MIGRATED';
  constructor(
    /** The Postgres schema that should hold Cyclone's tables. */
    readonly schema: string,
    /** The missing migrations by name, oldest first (empty when only a table is known missing). */
    readonly missing: readonly string[],
    options?: CycloneErrorOptions,
  ) {
    super(
      `the Cyclone schema "${schema}" is not migrated${missing.length > 0 ? ` (missing ${missing.join(', ')})` : ''}: run \`cyclone migrate\` (or migrate()) first`,
      options,
    );
  }
}

/** A database error Cyclone did not expect; `sqlState` is Postgres' code, `cause` the driver's error. */
export class DatabaseQueryError extends CycloneError {
  readonly code = 'DATABASE_QUERY_FAILED';
  constructor(
    /** What the store was doing, e.g. `complete`. */
    readonly operation: string,
    /** Postgres' SQLSTATE, when the server answered. */
    readonly sqlState: string | undefined,
    message: string,
    options?: CycloneErrorOptions,
  ) {
    super(`${operation} failed${sqlState ? ` (SQLSTATE ${sqlState})` : ''}: ${message}`, options);
  }
}

/**
 * A transactional completion (`ctx.transaction`, `ctx.completeWithin`) the step's claim refused:
 * the step was cancelled, forced, reclaimed, or its lease lost while the handler's transaction
 * ran. Nothing of that transaction committed (`ctx.transaction` rolled it back; after
 * `ctx.completeWithin` the caller must roll back), and the attempt's outcome is no longer this
 * worker's to record.
 */
export class StepFencedError extends CycloneError {
  readonly code = 'STEP_FENCED';
  constructor(
    readonly stepId: string,
    readonly runId: string,
    options?: CycloneErrorOptions,
  ) {
    super(
      `step ${stepId} of run ${runId} is no longer held by this attempt (cancelled, forced, reclaimed or its lease lost): its completion was refused, and the transaction that carried it does not commit`,
      options,
    );
  }
}

/**
 * Metrics were asked for (`metrics()`, or a `metricsRegistry` option) but `prom-client`, an
 * optional peer dependency, cannot be loaded. `cause` is the loader's error.
 */
export class MetricsUnavailableError extends CycloneError {
  readonly code = 'METRICS_UNAVAILABLE';
  constructor(
    /** What asked, e.g. `worker`. */
    readonly component: string,
    options?: CycloneErrorOptions,
  ) {
    super(
      `${component} metrics need the optional peer dependency prom-client: install it (npm install prom-client) to use metrics() or metricsRegistry`,
      options,
    );
  }
}
