import {
  type CycloneError,
  DatabaseQueryError,
  DatabaseUnreachableError,
  isCycloneError,
  SchemaNotMigratedError,
} from '@cyclone/core';

// Kept here so that the store's modules find it beside the errors it describes; its home is core.
export { redactUrl } from '@cyclone/core';

/**
 * What a database error means for the code that decides what to do next. Every part of Cyclone
 * that looks at a driver's error (the store, the worker's write retry, the CLI's exit codes) asks
 * {@link classifyDatabaseError}, so one list decides.
 */
export const DatabaseFailure = {
  /**
   * The connection failed, was lost, or the server would not serve it (refused, restarting,
   * shutting down, full, wrong password, no such database): nothing is known of the statement,
   * and the same work may succeed on a new connection.
   */
  Connection: 'connection',
  /** A serialization failure or a deadlock: nothing of the transaction persisted; run it again. */
  Conflict: 'conflict',
  /** Cyclone's tables or their Postgres schema are missing: the database is not migrated. */
  NotMigrated: 'not_migrated',
} as const;
/** A {@link DatabaseFailure} value. */
export type DatabaseFailure = (typeof DatabaseFailure)[keyof typeof DatabaseFailure];

/** Codes of Node's socket layer that mean the server could not be reached, or went away. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/**
 * SQLSTATEs of a server that is there but will not serve this connection. Whole classes:
 * `08` (connection exception) and `28` (invalid authorization specification).
 */
const CONNECTION_SQLSTATE_CLASSES = ['08', '28'];
const CONNECTION_SQLSTATES = new Set([
  '3D000', // invalid_catalog_name: the database does not exist
  '53300', // too_many_connections
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
]);

const CONFLICT_SQLSTATES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

const NOT_MIGRATED_SQLSTATES = new Set([
  '42P01', // undefined_table
  '3F000', // invalid_schema_name
]);

/** What pg (and libpq) say when a connection ends or never starts, without a code. */
const CONNECTION_MESSAGE =
  /connection terminated|connection closed|connection error|not queryable|the database system is (?:starting up|shutting down)|timeout expired/i;

/** How deep a chain of causes is followed: far enough for every wrapper Cyclone adds. */
const MAX_DEPTH = 5;

/** `value[key]`, or undefined when it is not an object or reading the property throws. */
function field(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined; // a hostile getter: the value tells nothing
  }
}

function failureOfCode(code: string): DatabaseFailure | undefined {
  if (NOT_MIGRATED_SQLSTATES.has(code)) return DatabaseFailure.NotMigrated;
  if (CONFLICT_SQLSTATES.has(code)) return DatabaseFailure.Conflict;
  if (
    SOCKET_CODES.has(code) ||
    CONNECTION_SQLSTATES.has(code) ||
    CONNECTION_SQLSTATE_CLASSES.some((prefix) => code.startsWith(prefix))
  ) {
    return DatabaseFailure.Connection;
  }
  return undefined;
}

function failureOfMessage(message: string): DatabaseFailure | undefined {
  const timedOutConnecting = /timeout|timed out/i.test(message) && /connect/i.test(message);
  return timedOutConnecting || CONNECTION_MESSAGE.test(message)
    ? DatabaseFailure.Connection
    : undefined;
}

/** The error of the chain that decides the class, with the class, or undefined. */
function decisive(
  error: unknown,
  depth = 0,
): { readonly failure: DatabaseFailure; readonly error: unknown } | undefined {
  if (depth > MAX_DEPTH || typeof error !== 'object' || error === null) return undefined;
  // Cyclone's own errors are told by their code (their messages are ours, not the driver's).
  if (isCycloneError(error, 'DATABASE_UNREACHABLE')) {
    return { failure: DatabaseFailure.Connection, error };
  }
  if (isCycloneError(error, 'SCHEMA_NOT_MIGRATED')) {
    return { failure: DatabaseFailure.NotMigrated, error };
  }
  if (!isCycloneError(error)) {
    const code = field(error, 'code');
    const message = field(error, 'message');
    const failure =
      (typeof code === 'string' ? failureOfCode(code) : undefined) ??
      (typeof message === 'string' ? failureOfMessage(message) : undefined);
    if (failure) return { failure, error };
    // Node reports a host with several addresses (localhost: ::1 and 127.0.0.1) as one
    // AggregateError of a failed attempt each: the aggregate decides, so all are named.
    const inner = field(error, 'errors');
    if (Array.isArray(inner)) {
      for (const each of inner) {
        const found = decisive(each, depth + 1);
        if (found) return { failure: found.failure, error };
      }
    }
  }
  return decisive(field(error, 'cause'), depth + 1);
}

/**
 * What `error` (a driver's error, one of Cyclone's, or either wrapping the other as `cause`) says
 * about the database: a failed connection, a conflict worth running again, a schema not
 * migrated, or nothing of these (undefined): a statement the server refused.
 */
export function classifyDatabaseError(error: unknown): DatabaseFailure | undefined {
  return decisive(error)?.failure;
}

function messageOf(error: unknown): string {
  const message = field(error, 'message');
  if (typeof message === 'string' && message !== '') return message;
  const name = field(error, 'name');
  return typeof name === 'string' ? name : String(error);
}

/**
 * Why the connection failed, in one line: the driver's message with its code (`3D000: database
 * "app" does not exist`, `connect ECONNREFUSED 127.0.0.1:5432`), every address's failure for a
 * host with several, `connection timed out` for a timeout. For an error that is no connection
 * failure, its message.
 */
export function connectionFailureReason(error: unknown): string {
  const found = decisive(error);
  const culprit = found?.failure === DatabaseFailure.Connection ? found.error : error;
  const reason = field(culprit, 'reason');
  if (isCycloneError(culprit, 'DATABASE_UNREACHABLE') && typeof reason === 'string') return reason;
  const inner = field(culprit, 'errors');
  if (Array.isArray(inner) && inner.length > 0) return inner.map(messageOf).join('; ');
  const message = messageOf(culprit);
  if (/timeout|timed out/i.test(message) && /connect/i.test(message)) {
    return 'connection timed out';
  }
  const code = field(culprit, 'code');
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

/** Where the store's database is, for error messages (never with a password). */
export interface DatabaseTarget {
  /** e.g. `postgres://app@db:5432/cyclone` */
  readonly description: string;
  /** The Postgres schema of Cyclone's tables. */
  readonly schema: string;
}

/**
 * Maps what the driver threw to one of Cyclone's typed errors, with the driver's error as `cause`:
 * a failed connection is {@link DatabaseUnreachableError}, a missing table or schema is
 * {@link SchemaNotMigratedError} ("run `cyclone migrate`"), any other database error is
 * {@link DatabaseQueryError} carrying the SQLSTATE. Cyclone's own errors pass through unchanged.
 */
export function toStoreError(
  error: unknown,
  operation: string,
  target: DatabaseTarget,
): CycloneError {
  if (isCycloneError(error)) return error;
  switch (classifyDatabaseError(error)) {
    case DatabaseFailure.NotMigrated:
      return new SchemaNotMigratedError(target.schema, [], { cause: error });
    case DatabaseFailure.Connection:
      return new DatabaseUnreachableError(target.description, connectionFailureReason(error), {
        cause: error,
      });
    default: {
      const code = field(error, 'code');
      const sqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
      return new DatabaseQueryError(operation, sqlState, messageOf(error), { cause: error });
    }
  }
}
