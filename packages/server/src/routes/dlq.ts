import type { ExhaustedReason } from '@cyclone/client';
import { Hono } from 'hono';
import type { AppEnv, ServerContext } from '../http/context.js';
import { queryObject } from '../http/request-query.js';
import { dlqQuery, redriveBody } from '../http/schemas.js';
import { parseRequest, readJsonBody } from '../http/validation.js';

/** The DLQ: `GET /api/dlq?reason=&workflow=` (a page of discarded steps) and `POST /api/dlq/redrive`. */
export function dlqRoutes(ctx: ServerContext): Hono<AppEnv> {
  const { client } = ctx;
  const app = new Hono<AppEnv>();

  app.get('/', async (c) => {
    const q = parseRequest(dlqQuery, queryObject(c), 'query');
    return c.json(
      await client.listExhausted({
        ...(q.reason === undefined ? {} : { reason: q.reason as ExhaustedReason }),
        ...(q.workflow === undefined ? {} : { workflow: q.workflow }),
        ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
        ...(q.limit === undefined ? {} : { limit: q.limit }),
      }),
    );
  });

  app.post('/redrive', async (c) => {
    const body = parseRequest(redriveBody, await readJsonBody(c.req.raw), 'body');
    return c.json(
      await client.redrive({
        ...(body.reason === undefined ? {} : { reason: body.reason as ExhaustedReason }),
        ...(body.workflow === undefined ? {} : { workflow: body.workflow }),
        ...(body.before === undefined ? {} : { before: body.before }),
        ...(body.limit === undefined ? {} : { limit: body.limit }),
      }),
    );
  });

  return app;
}
