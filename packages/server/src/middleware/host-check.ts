import type { MiddlewareHandler } from 'hono';
import type { AppEnv, ServerContext } from '../http/context.js';
import { refuse, requestHost } from './refuse.js';

/**
 * Refuses, before any route runs, a request whose `Host` does not name this server (decision
 * 151): what a page reaching the server through a rebound DNS name sends.
 */
export function hostCheck(ctx: ServerContext): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const host = requestHost(c);
    if (ctx.hosts.allows(host)) return next();
    return refuse(
      c,
      ctx.logger,
      'HOST_NOT_ALLOWED',
      `refused: Host ${JSON.stringify(host.slice(0, 200))} is not an address this server ` +
        'serves; name it with --allowed-host (createServer({ allowedHosts }))',
      { host },
    );
  };
}
