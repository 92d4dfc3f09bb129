import type { ExhaustedReason } from '@cyclone/client';
import type { Api } from '../http/api.js';
import type { ServerContext } from '../http/context.js';
import { exhaustedPage, redriveResult } from '../http/response-schemas.js';
import { dlqQuery, redriveBody } from '../http/schemas.js';

/** The DLQ: `GET /api/dlq?reason=&workflow=` (a page of discarded steps) and `POST /api/dlq/redrive`. */
export function dlqRoutes(api: Api, ctx: ServerContext): void {
  const { client } = ctx;

  api.route(
    {
      method: 'get',
      path: '/api/dlq',
      operationId: 'listDlq',
      tag: 'dlq',
      summary: 'Discarded steps, newest first; follow nextCursor for the next page',
      query: dlqQuery,
      answers: { 200: { description: 'A page of the DLQ', body: exhaustedPage } },
      errors: [400, 503],
    },
    async ({ query: q }) => ({
      status: 200,
      body: await client.listExhausted({
        ...(q.reason === undefined ? {} : { reason: q.reason as ExhaustedReason }),
        ...(q.workflow === undefined ? {} : { workflow: q.workflow }),
        ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
        ...(q.limit === undefined ? {} : { limit: q.limit }),
      }),
    }),
  );

  api.route(
    {
      method: 'post',
      path: '/api/dlq/redrive',
      operationId: 'redriveDlq',
      tag: 'dlq',
      summary: 'Retries discarded steps matching the filters; an empty body redrives everything',
      body: redriveBody,
      answers: { 200: { description: 'What was retried', body: redriveResult } },
      errors: [400, 503],
    },
    async ({ body }) => ({
      status: 200,
      body: await client.redrive({
        ...(body.reason === undefined ? {} : { reason: body.reason as ExhaustedReason }),
        ...(body.workflow === undefined ? {} : { workflow: body.workflow }),
        ...(body.before === undefined ? {} : { before: body.before }),
        ...(body.limit === undefined ? {} : { limit: body.limit }),
      }),
    }),
  );
}
