import type { Client } from '@cyclone/client';
import type { WorkflowDefinition } from '@cyclone/core';
import type { Logger } from 'pino';
import type { HostPolicy } from '../security/host-policy.js';
import type { Granted, Tokens } from '../security/tokens.js';
import type { EngineMetrics } from '../live/engine-metrics.js';
import type { NotificationHub } from '../live/notification-hub.js';

/** What every route and middleware reads: the client it operates through, and the server's shared parts. */
export interface ServerContext {
  readonly client: Client;
  readonly tokens: Tokens;
  /** Which `Host` headers name this server. */
  readonly hosts: HostPolicy;
  /** Origins whose pages may call the API (`corsOrigins`), as browsers send them. */
  readonly corsOrigins: ReadonlySet<string>;
  readonly logger: Logger;
  readonly hub: NotificationHub;
  readonly metrics: EngineMetrics;
  /** The definitions the server was given (`workflows`), by name, with their schemas. */
  readonly workflows: ReadonlyMap<string, WorkflowDefinition>;
}

/** Hono's environment of the app: the access the token middleware granted the request. */
export interface AppEnv {
  Variables: { access: Granted };
}
