import type { MiddlewareHandler } from 'hono';
import type { AppEnv, ServerContext } from '../http/context.js';
import { errorBody } from '../http/http-errors.js';
import { changesState } from '../security/cross-site.js';
import { accessOf, isReadMethod, presentedCredentials, requiresToken } from '../security/tokens.js';
import { refuse } from './refuse.js';

/**
 * The challenge of a 401. A browser opening a page (it accepts HTML) is sent the Basic challenge,
 * so it asks its user for the token once (as the password) and sends it with every later request;
 * API clients are sent the Bearer challenge. One challenge an answer: browsers do not read a
 * second one, and Node joins repeated headers into one line.
 */
function unauthorized(accept: string | undefined): Response {
  const challenge = accept?.includes('text/html')
    ? 'Basic realm="cyclone", charset="UTF-8"'
    : 'Bearer realm="cyclone"';
  return new Response(JSON.stringify(errorBody('UNAUTHORIZED', 'a valid token is required')), {
    status: 401,
    headers: { 'Content-Type': 'application/json', 'WWW-Authenticate': challenge },
  });
}

/**
 * The token rules (decisions 113 and 155). With no token configured every request is let
 * through (the server is on loopback). Otherwise a request needs one (401); the read-only token
 * may only read, and a change needs the token as Bearer: the Basic credentials a browser caches
 * and sends by itself, whichever page asks, only read.
 */
export function tokenAuth(ctx: ServerContext): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!requiresToken(ctx.tokens)) {
      c.set('access', 'full');
      return next();
    }
    const presented = presentedCredentials(c.req.header('Authorization'));
    const access = accessOf(presented, ctx.tokens);
    if (access === 'none') return unauthorized(c.req.header('Accept'));
    if (access === 'read' && !isReadMethod(c.req.method)) {
      return refuse(c, ctx.logger, 'FORBIDDEN', 'the read-only token may only read (GET)');
    }
    if (presented?.scheme === 'basic' && changesState(c.req.method)) {
      return refuse(
        c,
        ctx.logger,
        'BEARER_REQUIRED',
        'refused: a change needs the token as `Authorization: Bearer <token>`; Basic ' +
          'credentials (a browser sends them by itself) may only read',
      );
    }
    c.set('access', access);
    return next();
  };
}
