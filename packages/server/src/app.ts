import { Hono } from 'hono';
import { accessOf, isReadMethod, requiresToken } from './security/tokens.js';
import type { AppEnv, ServerContext } from './http/context.js';
import { errorBody, toHttpError } from './http/http-errors.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { dlqRoutes } from './routes/dlq.js';
import { eventStreamRoutes } from './routes/event-stream.js';
import { metricsRoutes } from './routes/metrics.js';
import { runActionRoutes } from './routes/run-actions.js';
import { runRoutes } from './routes/runs.js';
import { scheduleRoutes } from './routes/schedules.js';

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

/** The HTTP application: auth, request logging, every route, and the error mapping. */
export function buildApp(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  // Liveness: answered before auth, so probes need no token; it says nothing about the data.
  app.get('/healthz', (c) => c.json({ ok: true }));

  app.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    // Method, route and status only: never a body, a query or a header (they carry payloads and tokens).
    ctx.logger.info(
      {
        method: c.req.method,
        route: c.req.routePath,
        status: c.res.status,
        ms: Math.round(performance.now() - started),
      },
      'request',
    );
  });

  app.use('*', async (c, next) => {
    if (!requiresToken(ctx.tokens)) {
      c.set('access', 'full');
      return next();
    }
    const access = accessOf(c.req.header('Authorization'), ctx.tokens);
    if (access === 'none') return unauthorized(c.req.header('Accept'));
    if (access === 'read' && !isReadMethod(c.req.method)) {
      return c.json(errorBody('FORBIDDEN', 'the read-only token may only read (GET)'), 403);
    }
    c.set('access', access);
    return next();
  });

  app.route('/api/runs', runRoutes(ctx));
  app.route('/api/runs', runActionRoutes(ctx));
  app.route('/api/dlq', dlqRoutes(ctx));
  app.route('/api/schedules', scheduleRoutes(ctx));
  app.route('/api/events/stream', eventStreamRoutes(ctx));
  app.route('/metrics', metricsRoutes(ctx));
  app.route('/', dashboardRoutes());

  app.notFound((c) =>
    c.json(errorBody('NOT_FOUND', `no route ${c.req.method} ${c.req.path}`), 404),
  );

  app.onError((error, c) => {
    const answer = toHttpError(error);
    if (answer.internal) {
      ctx.logger.error(
        { route: c.req.routePath, err: error instanceof Error ? error : String(error) },
        'request failed',
      );
    } else if (answer.status === 503) {
      ctx.logger.warn(
        { route: c.req.routePath, code: answer.body.error.code },
        'database unavailable',
      );
    }
    return c.json(answer.body, answer.status);
  });

  return app;
}
