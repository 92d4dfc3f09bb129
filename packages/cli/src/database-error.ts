import { redactUrl } from './database-url.js';

/** The database did not answer, or refused the connection: exit code 4. */
export class DatabaseUnreachableError extends Error {
  readonly code = 'DATABASE_UNREACHABLE';
  constructor(url: string | undefined, cause: unknown) {
    super(
      `cannot reach the database${url ? ` at ${redactUrl(url)}` : ''}: ${connectionProblem(cause)}`,
      { cause },
    );
    this.name = 'DatabaseUnreachableError';
  }
}

/** Socket errors of a connection that never got through. */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * SQLSTATEs of a server that answered but will not let us in: connection exceptions (08),
 * authorisation (28), no such database (3D000), starting up or shutting down (57P03).
 */
const refusedStates = /^(08|28)|^3D000$|^57P03$/;

/** Whether `error` (or an error it wraps) says the connection to the database failed. */
export function isConnectionError(error: unknown): boolean {
  return connectionCause(error) !== undefined;
}

function connectionCause(error: unknown, depth = 0): Error | undefined {
  if (!(error instanceof Error) || depth > 5) return undefined;
  if (error instanceof DatabaseUnreachableError) return error;
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const found = connectionCause(inner, depth + 1);
      if (found) return found;
    }
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (socketCodes.has(code) || refusedStates.test(code))) return error;
  if (/connection terminated|connection timeout|timeout expired/i.test(error.message)) return error;
  return connectionCause(error.cause, depth + 1);
}

function connectionProblem(error: unknown): string {
  const cause = connectionCause(error) ?? error;
  if (cause instanceof AggregateError && cause.errors.length > 0) {
    return cause.errors.map((e) => (e instanceof Error ? e.message : String(e))).join('; ');
  }
  return cause instanceof Error ? cause.message || cause.name : String(cause);
}
