import type { Client, ConcurrencyLimit, RateLimit } from '@cyclone/client';
import { NotFoundError } from '@cyclone/core';
import type { Api } from '../http/api.js';
import type { ServerContext } from '../http/context.js';
import {
  concurrencyLimitAnswer,
  limitList,
  limitRemoved,
  rateLimitAnswer,
} from '../http/response-schemas.js';
import { concurrencyLimitBody, limitParams, rateLimitBody } from '../http/schemas.js';

/** A kind's concurrency cap as listed now. @throws NotFoundError when the kind has none */
async function concurrencyOf(client: Client, kind: string): Promise<ConcurrencyLimit> {
  const found = (await client.listConcurrencyLimits()).find((l) => l.kind === kind);
  if (!found) throw new NotFoundError('concurrency limit', kind);
  return found;
}

/** A kind's rate limit as listed now. @throws NotFoundError when the kind has none */
async function rateOf(client: Client, kind: string): Promise<RateLimit> {
  const found = (await client.listRateLimits()).find((l) => l.kind === kind);
  if (!found) throw new NotFoundError('rate limit', kind);
  return found;
}

/**
 * Flow limits (decisions 250-257, 260-264): `GET /api/limits` (every concurrency cap with its
 * running and held-back steps, and every rate limit), and `GET|PUT|DELETE` of one kind's cap
 * (`/api/limits/concurrency/:kind`) or rate limit (`/api/limits/rate/:kind`). A `PUT` creates or
 * replaces the limit and answers it as listed afterwards; a `GET` or `DELETE` of a kind without
 * that limit answers 404.
 */
export function limitRoutes(api: Api, ctx: ServerContext): void {
  const { client } = ctx;

  api.route(
    {
      method: 'get',
      path: '/api/limits',
      operationId: 'listLimits',
      tag: 'limits',
      summary: 'Every concurrency cap (with running and waiting steps) and every rate limit',
      answers: { 200: { description: 'The limits, by kind', body: limitList } },
      errors: [503],
    },
    async () => {
      const [concurrency, rate] = await Promise.all([
        client.listConcurrencyLimits(),
        client.listRateLimits(),
      ]);
      return { status: 200, body: { concurrency, rate } };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/limits/concurrency/{kind}',
      operationId: 'getConcurrencyLimit',
      tag: 'limits',
      summary: "A kind's concurrency cap, with its running and waiting steps",
      params: limitParams,
      answers: { 200: { description: 'The cap', body: concurrencyLimitAnswer } },
      errors: [400, 404, 503],
    },
    async ({ params }) => ({
      status: 200,
      body: { limit: await concurrencyOf(client, params.kind) },
    }),
  );

  api.route(
    {
      method: 'put',
      path: '/api/limits/concurrency/{kind}',
      operationId: 'setConcurrencyLimit',
      tag: 'limits',
      summary: "Creates or replaces a kind's concurrency cap (its rate limit stays)",
      description:
        'Obeyed by every worker at its next claim; raising or removing a cap wakes the kind’s workers. Steps running now count against it; lowering it below them stops no handler.',
      params: limitParams,
      body: concurrencyLimitBody,
      answers: { 200: { description: 'The cap as set', body: concurrencyLimitAnswer } },
      errors: [400, 503],
    },
    async ({ params, body }) => {
      await client.setConcurrencyLimit({
        kind: params.kind,
        max: body.max,
        perKey: body.perKey ?? false,
      });
      return { status: 200, body: { limit: await concurrencyOf(client, params.kind) } };
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/api/limits/concurrency/{kind}',
      operationId: 'removeConcurrencyLimit',
      tag: 'limits',
      summary: "Removes a kind's concurrency cap (its rate limit stays)",
      params: limitParams,
      answers: { 200: { description: 'The cap was removed', body: limitRemoved } },
      errors: [400, 404, 503],
    },
    async ({ params }) => {
      if (!(await client.removeConcurrencyLimit(params.kind))) {
        throw new NotFoundError('concurrency limit', params.kind);
      }
      return { status: 200, body: { kind: params.kind, removed: 'concurrency' } };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/limits/rate/{kind}',
      operationId: 'getRateLimit',
      tag: 'limits',
      summary: "A kind's rate limit",
      params: limitParams,
      answers: { 200: { description: 'The rate limit', body: rateLimitAnswer } },
      errors: [400, 404, 503],
    },
    async ({ params }) => ({ status: 200, body: { limit: await rateOf(client, params.kind) } }),
  );

  api.route(
    {
      method: 'put',
      path: '/api/limits/rate/{kind}',
      operationId: 'setRateLimit',
      tag: 'limits',
      summary: "Creates or replaces a kind's rate limit (its concurrency cap stays)",
      description:
        'At most `limit` steps of the kind (per concurrency key with `perKey`) start within any interval of length `period`, a sliding window.',
      params: limitParams,
      body: rateLimitBody,
      answers: { 200: { description: 'The rate limit as set', body: rateLimitAnswer } },
      errors: [400, 503],
    },
    async ({ params, body }) => {
      await client.setRateLimit({
        kind: params.kind,
        limit: body.limit,
        // Checked by the client, which names `period` in its 400.
        period: body.period as RateLimit['period'],
        perKey: body.perKey ?? false,
      });
      return { status: 200, body: { limit: await rateOf(client, params.kind) } };
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/api/limits/rate/{kind}',
      operationId: 'removeRateLimit',
      tag: 'limits',
      summary: "Removes a kind's rate limit (its concurrency cap stays)",
      params: limitParams,
      answers: { 200: { description: 'The rate limit was removed', body: limitRemoved } },
      errors: [400, 404, 503],
    },
    async ({ params }) => {
      if (!(await client.removeRateLimit(params.kind))) {
        throw new NotFoundError('rate limit', params.kind);
      }
      return { status: 200, body: { kind: params.kind, removed: 'rate' } };
    },
  );
}
