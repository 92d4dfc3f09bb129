import { z } from 'zod';
import type { Api } from '../http/api.js';

/**
 * `GET /api/openapi.json`: the OpenAPI 3.1 description of every route, built from the schemas
 * the routes parse requests with. Served without a token, like `/healthz`, but after the `Host`
 * and cross-site checks (app.ts): it describes the API, never its data.
 */
export function openApiRoutes(api: Api): void {
  api.route(
    {
      method: 'get',
      path: '/api/openapi.json',
      operationId: 'getOpenApiDescription',
      tag: 'server',
      summary: 'This description of the API (OpenAPI 3.1), served without a token',
      public: true,
      answers: {
        200: {
          description: 'The OpenAPI document',
          content: { 'application/json': z.record(z.string(), z.unknown()) },
        },
      },
    },
    (_input, c) => c.json(api.description()),
  );
}
