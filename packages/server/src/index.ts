/**
 * `@cyclone/server`: Cyclone's HTTP API and dashboard. JSON routes for every operation of the
 * client (for services in other languages), Prometheus metrics, and a dashboard at `/`.
 *
 * @example
 * ```ts
 * import { createServer } from '@cyclone/server';
 *
 * const server = createServer({ connectionString: process.env.CYCLONE_DATABASE_URL! });
 * const { url } = await server.listen(7300); // 127.0.0.1 unless a token is given
 * console.log(`dashboard at ${url}`);
 * ```
 *
 * @packageDocumentation
 */
export {
  createServer,
  CycloneServer,
  type ServerOptions,
  type ListeningAddress,
} from './server.js';
export { DefaultHost, DefaultPort, isLoopback } from './security/bind-policy.js';
export { InsecureBindError, ServerOptionsError } from './security/errors.js';
export type { ErrorBody } from './http/http-errors.js';
export type { ChangeNotice } from './live/notification-hub.js';
