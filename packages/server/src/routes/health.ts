import type { Api } from '../http/api.js';
import { health } from '../http/response-schemas.js';

/**
 * `GET /healthz`: 200 as soon as the server serves. Registered before every check (decision
 * 156): probes send the Host they like and no token, and the answer says nothing about the data.
 */
export function healthRoutes(api: Api): void {
  api.route(
    {
      method: 'get',
      path: '/healthz',
      operationId: 'getHealth',
      tag: 'server',
      summary: 'Liveness: 200 once the server serves (any Host, no token)',
      public: true,
      answers: { 200: { description: 'The server serves', body: health } },
    },
    () => ({ status: 200, body: { ok: true } }),
  );
}
