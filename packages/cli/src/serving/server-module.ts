import type * as ServerExports from '@cyclone/server';
import { RefusedError, UsageError } from '../framework/cli-error.js';

/**
 * What `cyclone serve` and `cyclone dev` share to serve the dashboard and the HTTP API: loading
 * `@cyclone/server` on demand, and reading `--port`.
 */

/** The exports of `@cyclone/server`. */
export type ServerModule = typeof ServerExports;

/**
 * Loads `@cyclone/server` only for `cyclone serve` and `cyclone dev`, so the other commands never load the HTTP
 * stack; a missing package is a one-line refusal saying what to install.
 */
export async function loadServerModule(
  load: () => Promise<ServerModule> = () => import('@cyclone/server'),
): Promise<ServerModule> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : '';
    if (code === 'ERR_MODULE_NOT_FOUND' && message.includes('@cyclone/server')) {
      throw new RefusedError(
        '`cyclone serve` needs @cyclone/server, which is not installed: run `npm install @cyclone/server`',
        'SERVER_MISSING',
      );
    }
    throw error;
  }
}

/** `--port` as a port number; 0 picks a free one. @throws UsageError for anything else */
export function portOption(value: unknown): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`--port expects a port number from 0 to 65535, got "${String(value)}"`);
  }
  return port;
}
