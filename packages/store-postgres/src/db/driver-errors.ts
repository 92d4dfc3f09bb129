import {
  type CycloneError,
  DatabaseQueryError,
  DatabaseUnreachableError,
  isCycloneError,
  SchemaNotMigratedError,
} from '@cyclone/core';

/** Socket-level codes of Node and pg that mean the server could not be reached. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/** SQLSTATEs that mean the server is there but will not serve this connection. */
const REFUSED_SQLSTATES = new Set([
  '57P01', // admin_shutdown (the backend was terminated)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down)
  '3D000', // invalid_catalog_name: the database does not exist
  '28000', // invalid_authorization_specification
  '28P01', // invalid_password
  '53300', // too_many_connections
]);

/** SQLSTATEs that mean Cyclone's tables (or their schema) are missing: not migrated. */
const MISSING_SCHEMA_SQLSTATES = new Set([
  '42P01', // undefined_table
  '3F000', // invalid_schema_name
]);

/** Where the store's database is, for error messages (never with a password). */
export interface DatabaseTarget {
  /** e.g. `postgres://app@db:5432/cyclone` */
  readonly description: string;
  /** The Postgres schema of Cyclone's tables. */
  readonly schema: string;
}

function describe(error: unknown): { code: string | undefined; message: string } {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return { code: typeof code === 'string' ? code : undefined, message };
}

/**
 * Maps what the driver threw to one of Cyclone's typed errors, with the driver's error as `cause`:
 * an unreachable server is {@link DatabaseUnreachableError}, a missing table or schema is
 * {@link SchemaNotMigratedError} ("run `cyclone migrate`"), any other database error is
 * {@link DatabaseQueryError} carrying the SQLSTATE. Cyclone's own errors pass through unchanged.
 */
export function toStoreError(
  error: unknown,
  operation: string,
  target: DatabaseTarget,
): CycloneError {
  if (isCycloneError(error)) return error;
  const { code, message } = describe(error);
  if (code !== undefined && MISSING_SCHEMA_SQLSTATES.has(code)) {
    return new SchemaNotMigratedError(target.schema, [], { cause: error });
  }
  const timedOut = /timeout|timed out/i.test(message) && /connect/i.test(message);
  const lost =
    /Connection terminated|connection closed|Client has encountered a connection error/i.test(
      message,
    );
  if (
    (code !== undefined && (UNREACHABLE_CODES.has(code) || REFUSED_SQLSTATES.has(code))) ||
    timedOut ||
    lost
  ) {
    const reason = timedOut ? 'connection timed out' : code ? `${code}: ${message}` : message;
    return new DatabaseUnreachableError(target.description, reason, { cause: error });
  }
  const sqlState = code !== undefined && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  return new DatabaseQueryError(operation, sqlState, message, { cause: error });
}

/** `url` with its password hidden. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable URL>';
  }
}
