import type { Client } from '@cyclone/client';
import type { Logger } from 'pino';
import type { Access, Tokens } from '../security/tokens.js';
import type { EngineMetrics } from '../live/engine-metrics.js';
import type { NotificationHub } from '../live/notification-hub.js';

/** What every route reads: the client it operates through, and the server's shared parts. */
export interface ServerContext {
  readonly client: Client;
  readonly tokens: Tokens;
  readonly logger: Logger;
  readonly hub: NotificationHub;
  readonly metrics: EngineMetrics;
}

/** Hono's environment of the app: the access the auth middleware granted the request. */
export interface AppEnv {
  Variables: { access: Access };
}
