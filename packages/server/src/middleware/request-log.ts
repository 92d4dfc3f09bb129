import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { AppEnv } from '../http/context.js';

/** Logs each request once answered. */
export function requestLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    // Method, route and status only: never a body, a query or a header (they carry payloads and tokens).
    logger.info(
      {
        method: c.req.method,
        route: c.req.routePath,
        status: c.res.status,
        ms: Math.round(performance.now() - started),
      },
      'request',
    );
  };
}
