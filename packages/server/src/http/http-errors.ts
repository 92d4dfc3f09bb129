import { isCycloneError, ValidationError, type ValidationIssue } from '@cyclone/core';

/** The operator refusals that answer 409, with the reason each carries when the store gave none. */
export const RefusalCodes: Readonly<Record<string, string>> = {
  ALREADY_TERMINAL: 'terminal',
  NO_EXHAUSTED_NODE: 'invalid-entry',
  CHILD_NOT_RETRYABLE: 'invalid-entry',
  ALREADY_PAUSED: 'invalid-entry',
  NOT_PAUSED: 'invalid-entry',
  TRANSITION_REJECTED: 'invalid-entry',
  TRANSITION_REFUSED: 'invalid-entry',
};

/** Codes that mean the database cannot serve now: retry later, the request itself was fine. */
export const UnavailableCodes: ReadonlySet<string> = new Set([
  'DATABASE_UNREACHABLE',
  'SCHEMA_NOT_MIGRATED',
]);

/** The JSON every error answers with. */
export interface ErrorBody {
  readonly error: {
    readonly code: string;
    readonly message: string;
    /** 409: the rule's rejection reason (`terminal`, `invalid-entry`, ...). */
    readonly reason?: string;
    /** 400: each bad field. */
    readonly issues?: readonly ValidationIssue[];
  };
}

/** An error as an HTTP status and body; `internal` marks a failure the server must log. */
export interface HttpError {
  readonly status: 400 | 401 | 403 | 404 | 409 | 500 | 503;
  readonly body: ErrorBody;
  readonly internal: boolean;
}

/** An error answer built by a route or middleware, e.g. 401. */
export function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}

/**
 * Maps what an operation threw to its answer. Cyclone's own errors keep their code and message
 * (their messages name ids and states, never payloads); anything else is a 500 whose message
 * says nothing about the internals, so no stack trace or SQL leaves the server.
 */
export function toHttpError(error: unknown): HttpError {
  if (isCycloneError(error)) {
    const refusal = RefusalCodes[error.code];
    if (refusal !== undefined) {
      return {
        status: 409,
        body: {
          error: { code: error.code, reason: error.reason ?? refusal, message: error.message },
        },
        internal: false,
      };
    }
    if (error.code === 'NOT_FOUND') {
      return { status: 404, body: errorBody(error.code, error.message), internal: false };
    }
    if (error instanceof ValidationError || error.code === 'VALIDATION') {
      const issues = (error as ValidationError).issues ?? [];
      return {
        status: 400,
        body: { error: { code: 'VALIDATION', message: error.message, issues } },
        internal: false,
      };
    }
    if (UnavailableCodes.has(error.code)) {
      return { status: 503, body: errorBody(error.code, error.message), internal: false };
    }
  }
  return {
    status: 500,
    body: errorBody('INTERNAL', 'internal server error (see the server log)'),
    internal: true,
  };
}
