import { CycloneError, type CycloneErrorOptions } from '@cyclone/core';

/**
 * The server was asked to listen on an address other than loopback with no token: anyone who
 * can reach that address could cancel runs. Nothing is bound.
 */
export class InsecureBindError extends CycloneError {
  readonly code = 'INSECURE_BIND';
  constructor(
    /** The host it was asked to bind. */
    readonly host: string,
    options?: CycloneErrorOptions,
  ) {
    super(
      `refusing to listen on ${host} without a token: pass --token (or CYCLONE_TOKEN, or the ` +
        '`token` option), or bind 127.0.0.1',
      options,
    );
  }
}

/** Options of `createServer` that cannot work together (neither a client nor a connection string, ...). */
export class ServerOptionsError extends CycloneError {
  readonly code = 'SERVER_OPTIONS';
}
