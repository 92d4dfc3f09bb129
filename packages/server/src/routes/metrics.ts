import { z } from 'zod';
import type { Api } from '../http/api.js';
import type { ServerContext } from '../http/context.js';

/** `GET /metrics`: Prometheus text, computed from the database at each scrape. */
export function metricsRoutes(api: Api, ctx: ServerContext): void {
  api.route(
    {
      method: 'get',
      path: '/metrics',
      operationId: 'getMetrics',
      tag: 'server',
      summary: 'Prometheus metrics, read from the database at each scrape',
      answers: {
        200: {
          description: 'The Prometheus text format (the package README lists every metric)',
          content: { 'text/plain': z.string() },
        },
      },
      errors: [503],
    },
    async (_input, c) => {
      const text = await ctx.metrics.scrape();
      return c.body(text, 200, { 'Content-Type': ctx.metrics.contentType });
    },
  );
}
