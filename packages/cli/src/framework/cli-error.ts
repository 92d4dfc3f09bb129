/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  readonly code = 'USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The operation cannot go ahead for a reason the message gives in one line: exit code 1. */
export class RefusedError extends Error {
  constructor(
    message: string,
    readonly code = 'REFUSED',
  ) {
    super(message);
    this.name = 'RefusedError';
  }
}
