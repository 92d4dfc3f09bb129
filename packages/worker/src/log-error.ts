import { describeThrown, truncateText } from '@cyclone/core';
import { redactSecrets } from './redact-secrets.js';

/** Largest error message the worker writes to its log, in bytes of UTF-8. */
export const LoggedMessageBytes = 1024;

/** What the worker logs of an error: never its other properties (a pg error's detail, a query's parameters). */
export interface LoggedError {
  /** The class name, e.g. `DatabaseError`. */
  readonly type: string;
  /** The error's code (a SQLSTATE, a Node error code, a Cyclone code), when it has one. */
  readonly code?: string;
  /** The message, with known secret patterns redacted, capped; left out when not asked for. */
  readonly message?: string;
}

/**
 * An error as the worker logs it, under the `error` key. pino's `err` serializer would write every
 * enumerable property, and a pg error carries the failing row's values in `detail` and may carry
 * a connection string, so only the type, the code and a redacted, capped message are kept.
 *
 * @param withMessage - false leaves the message out (handler errors, unless `logErrorMessages`)
 */
export function loggableError(error: unknown, withMessage = true): LoggedError {
  // Redact before the final cut, so a secret that straddles the cut is still found.
  const described = describeThrown(error, { messageBytes: LoggedMessageBytes * 4, stackBytes: 0 });
  return {
    type: described.name,
    ...(described.code === undefined ? {} : { code: described.code }),
    ...(withMessage
      ? { message: truncateText(redactSecrets(described.message), LoggedMessageBytes) }
      : {}),
  };
}
