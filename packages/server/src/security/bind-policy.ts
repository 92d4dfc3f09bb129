import { InsecureBindError } from './errors.js';
import { requiresToken, type Tokens } from './tokens.js';

/** The host the server binds when none is given: this machine only. */
export const DefaultHost = '127.0.0.1';

/** The port the server listens on when none is given. */
export const DefaultPort = 7300;

const LoopbackHosts = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Whether `host` only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  return LoopbackHosts.has(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Refuses to serve beyond this machine without a token: the API cancels and retries runs, so an
 * open port on a network would hand that to anyone who reaches it.
 *
 * @throws InsecureBindError for a non-loopback host with no token
 */
export function assertSafeBind(host: string, tokens: Tokens): void {
  if (!isLoopback(host) && !requiresToken(tokens)) throw new InsecureBindError(host);
}
