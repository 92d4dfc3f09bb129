import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { AppEnv } from '../http/context.js';
import { errorBody } from '../http/http-errors.js';

/**
 * Answers 403 with `{ error: { code, message } }` and logs the refusal with its code and, where
 * they say why, the `Host` or `Origin` it named: addresses, never a payload or a credential.
 */
export function refuse(
  c: Context<AppEnv>,
  logger: Logger,
  code: string,
  message: string,
  named: { host?: string; origin?: string } = {},
): Response {
  const fields = Object.fromEntries(
    Object.entries(named).map(([name, value]) => [name, value.slice(0, 200)]),
  );
  logger.warn({ method: c.req.method, code, ...fields }, 'request refused');
  return c.json(errorBody(code, message), 403);
}

/**
 * The host a request was sent to: its `Host` header, or the host of its URL when a Fetch API
 * caller built the request without one.
 */
export function requestHost(c: Context<AppEnv>): string {
  return c.req.header('Host') ?? new URL(c.req.url).host;
}
