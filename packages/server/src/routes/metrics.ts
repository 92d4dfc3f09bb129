import { Hono } from 'hono';
import type { AppEnv, ServerContext } from '../http/context.js';

/** `GET /metrics`: Prometheus text, computed from the database at each scrape. */
export function metricsRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    const text = await ctx.metrics.scrape();
    return c.body(text, 200, { 'Content-Type': ctx.metrics.contentType });
  });
  return app;
}
