import type { MiddlewareHandler } from 'hono';
import type { AppEnv, ServerContext } from '../http/context.js';
import {
  changesState,
  contentTypeRefusal,
  originRefusal,
  type Refusal,
} from '../security/cross-site.js';
import { refuse, requestHost } from './refuse.js';

/** Which requests a guard checks. */
export type Guarded =
  /** Every change (POST, PUT, DELETE, ...): origin and content type. */
  | 'changes'
  /** Every request to the routes it is mounted on, reads included: origin only, no CORS origin. */
  | 'same-origin-only';

/**
 * Refuses what a page elsewhere may have made a browser send (decision 150): a change from a
 * foreign origin or another site, or with a body that is not declared JSON. `same-origin-only`
 * guards a read that hands out a secret (`/api/session`) against every origin but the server's.
 */
export function crossSiteGuard(
  ctx: ServerContext,
  guarded: Guarded = 'changes',
): MiddlewareHandler<AppEnv> {
  const trusted = guarded === 'changes' ? ctx.corsOrigins : new Set<string>();
  return async (c, next) => {
    const changes = changesState(c.req.method);
    if (!changes && guarded === 'changes') return next();
    const origin = c.req.header('Origin');
    const refusal: Refusal | undefined =
      originRefusal(
        { host: requestHost(c), origin, fetchSite: c.req.header('Sec-Fetch-Site') },
        trusted,
      ) ?? (changes ? contentTypeRefusal(c.req.header('Content-Type')) : undefined);
    if (refusal === undefined) return next();
    return refuse(
      c,
      ctx.logger,
      refusal.code,
      refusal.message,
      refusal.code === 'FOREIGN_ORIGIN' && origin !== undefined ? { origin } : {},
    );
  };
}
