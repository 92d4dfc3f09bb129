import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/context.js';

/**
 * Headers of every answer (decision 157). Answers carry user data (inputs, outputs, errors):
 * `nosniff` keeps a browser from reading JSON as HTML or a script, and
 * `Cross-Origin-Resource-Policy: same-origin` keeps a page of another origin from loading an
 * answer into its own process (`<script src>`, `<img>`, a no-cors fetch). CORS requests of the
 * `corsOrigins` are not affected: that header applies to no-cors loads only.
 */
export function responseHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    c.res.headers.set('X-Content-Type-Options', 'nosniff');
    c.res.headers.set('Cross-Origin-Resource-Policy', 'same-origin');
  };
}
