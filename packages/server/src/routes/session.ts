import type { Api } from '../http/api.js';
import type { ServerContext } from '../http/context.js';
import { sessionBody } from '../http/response-schemas.js';
import { presentedCredentials, requiresToken, type Granted } from '../security/tokens.js';

/** What `GET /api/session` answers. */
export interface SessionBody {
  /** What the request's credentials allow: `full` on a server without a token. */
  readonly access: Granted;
  /**
   * The token the request presented, to send as `Authorization: Bearer` on changes; null on a
   * server without a token.
   */
  readonly bearer: string | null;
}

/**
 * `GET /api/session`: what the request's credentials allow, and the token they carried. The
 * dashboard's script reads it once, so that its changes carry the token as Bearer while the
 * browser's cached Basic credentials only read (decision 155). It hands back only what the
 * request presented, to the server's own pages only (the route is guarded same-origin-only in
 * app.ts), and is never cached.
 */
export function sessionRoutes(api: Api, ctx: ServerContext): void {
  api.route(
    {
      method: 'get',
      path: '/api/session',
      operationId: 'getSession',
      tag: 'server',
      summary: 'What the credentials allow, and the token they carried (same-origin pages only)',
      answers: { 200: { description: 'The session', body: sessionBody } },
    },
    (_input, c) => {
      const presented = requiresToken(ctx.tokens)
        ? presentedCredentials(c.req.header('Authorization'))
        : undefined;
      const body: SessionBody = { access: c.get('access'), bearer: presented?.secret ?? null };
      return { status: 200, body, headers: { 'Cache-Control': 'no-store' } };
    },
  );
}
