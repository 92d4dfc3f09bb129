import { z } from 'zod';
import type { Api } from '../http/api.js';
import type { ApiDescription } from '../http/api-description.js';
import type { ServerContext } from '../http/context.js';
import { withWorkflowInputs } from '../workflows/workflow-inputs.js';

/**
 * `GET /api/openapi.json`: the OpenAPI 3.1 description of every route, built from the schemas
 * the routes parse requests with. Served without a token, like `/healthz`, but after the `Host`
 * and cross-site checks (app.ts): it describes the API, never its data. The input JSON Schema
 * of each workflow the server was given narrows `POST /api/runs`'s body (workflow-inputs.ts).
 */
export function openApiRoutes(api: Api, ctx: Pick<ServerContext, 'workflows'>): void {
  let described: ApiDescription | undefined;
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
    (_input, c) => c.json((described ??= withWorkflowInputs(api.description(), ctx.workflows))),
  );
}
