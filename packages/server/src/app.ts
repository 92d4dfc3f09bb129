import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { Api } from './http/api.js';
import type { AppEnv, ServerContext } from './http/context.js';
import { errorBody, toHttpError } from './http/http-errors.js';
import { crossSiteGuard } from './middleware/cross-site-guard.js';
import { hostCheck } from './middleware/host-check.js';
import { requestLog } from './middleware/request-log.js';
import { responseHeaders } from './middleware/response-headers.js';
import { tokenAuth } from './middleware/token-auth.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { dlqRoutes } from './routes/dlq.js';
import { eventStreamRoutes } from './routes/event-stream.js';
import { healthRoutes } from './routes/health.js';
import { limitRoutes } from './routes/limits.js';
import { fairShareRoutes } from './routes/fair-share.js';
import { metricsRoutes } from './routes/metrics.js';
import { openApiRoutes } from './routes/openapi.js';
import { overviewRoutes } from './routes/overview.js';
import { runActionRoutes } from './routes/run-actions.js';
import { runRoutes } from './routes/runs.js';
import { scheduleRoutes } from './routes/schedules.js';
import { sessionRoutes } from './routes/session.js';

/** How long a browser may reuse a CORS origin's preflight, in seconds. */
const PreflightMaxAge = 600;

/**
 * The HTTP application. Each request passes, in this order: the `Host` check, CORS (only with
 * `corsOrigins`), the cross-site checks of changes, the token; then its route, and the error
 * mapping. The checks that refuse what a browser was tricked into sending come before the token,
 * so such a request never earns a 401 that would make the browser ask its user for credentials.
 * Every route is added through {@link Api.route}, which also describes it in
 * `GET /api/openapi.json`.
 */
export function buildApp(ctx: ServerContext): { app: Hono<AppEnv>; api: Api } {
  const app = new Hono<AppEnv>();
  const api = new Api(app);

  app.use('*', responseHeaders());
  // Liveness, answered before every check (decision 156). Not logged: probes come every few
  // seconds.
  healthRoutes(api);

  app.use('*', requestLog(ctx.logger));
  app.use('*', hostCheck(ctx));
  if (ctx.corsOrigins.size > 0) {
    app.use(
      '/api/*',
      cors({
        origin: [...ctx.corsOrigins],
        allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
        allowHeaders: ['Authorization', 'Content-Type'],
        maxAge: PreflightMaxAge,
        // No Allow-Credentials: a CORS origin's page sends the token itself, never the Basic
        // credentials a browser cached for the dashboard (decision 154).
      }),
    );
  }
  app.use('*', crossSiteGuard(ctx));
  app.use('/api/session', crossSiteGuard(ctx, 'same-origin-only'));
  // Routes served without a token (as /healthz, but behind the checks above) go here, each
  // declared `public: true` so that its description says so.
  openApiRoutes(api, ctx);
  app.use('*', tokenAuth(ctx));

  sessionRoutes(api, ctx);
  runRoutes(api, ctx);
  runActionRoutes(api, ctx);
  dlqRoutes(api, ctx);
  scheduleRoutes(api, ctx);
  limitRoutes(api, ctx);
  fairShareRoutes(api, ctx);
  overviewRoutes(api, ctx);
  eventStreamRoutes(api, ctx);
  metricsRoutes(api, ctx);
  dashboardRoutes(api);

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

  return { app, api };
}
