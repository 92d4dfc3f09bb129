import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@cyclone/client';
import type { WorkflowDefinition } from '@cyclone/core';
import type { PoolerMode } from '@cyclone/store-postgres';
import { createAdaptorServer, getRequestListener } from '@hono/node-server';
import { pino, type Logger } from 'pino';
import type { Registry } from 'prom-client';
import { buildApp } from './app.js';
import type { ServerContext } from './http/context.js';
import { EngineMetrics } from './live/engine-metrics.js';
import { NotificationHub } from './live/notification-hub.js';
import { assertSafeBind, DefaultHost, DefaultPort } from './security/bind-policy.js';
import { parseCorsOrigin } from './security/cross-site.js';
import { ServerOptionsError } from './security/errors.js';
import { HostPolicy, type ServedAddress } from './security/host-policy.js';
import { registeredWorkflows } from './workflows/registered-workflows.js';

/** Options of {@link createServer}: a client to operate through, or a database to open one on. */
export type ServerOptions = (
  | { readonly client: Client; readonly connectionString?: undefined }
  | { readonly connectionString: string; readonly client?: undefined }
) & {
  /**
   * Postgres schema of Cyclone's tables, for a client opened from `connectionString`.
   * @defaultValue `'public'`
   */
  readonly schema?: string;
  /**
   * For a client opened from `connectionString`: `'transaction'` when it goes through a pooler in
   * transaction mode (see the client's `pooler` option and docs/poolers.md).
   * @defaultValue `'none'`
   */
  readonly pooler?: PoolerMode;
  /**
   * For a client opened from `connectionString`: a direct (or session-mode) URL the event stream
   * LISTENs on behind a transaction-mode pooler. Without one there the stream answers
   * `unavailable` and the dashboard polls.
   */
  readonly listenConnectionString?: string;
  /**
   * With it, every request but `GET /healthz` needs `Authorization: Bearer <token>`. A browser
   * may send it as the password of Basic credentials to read; a change needs it as Bearer.
   */
  readonly token?: string;
  /** A token that may only read (GET); POSTs with it answer 403. */
  readonly readOnlyToken?: string;
  /**
   * More names the server answers to in the `Host` header, besides loopback names and the address
   * it listens on: what a reverse proxy, a load balancer or a DNS name sends. An entry is a name
   * or an address, any port (`'cyclone.example.com'`), or with one (`'cyclone.example.com:8443'`,
   * `'[::1]:7300'`), or a domain and its subdomains (`'.example.com'`). Any other Host answers 403.
   * @defaultValue `[]`
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Origins whose pages may call the API from a browser (`'https://ops.example.com'`): CORS
   * headers for them (no credentials: their pages send the token as Bearer), and their changes
   * pass the cross-site checks. None by default: no CORS headers, and a change from any other
   * page than the server's own answers 403.
   * @defaultValue `[]`
   */
  readonly corsOrigins?: readonly string[];
  /**
   * Where {@link CycloneServer.listen} binds. Any host but loopback needs a token.
   * @defaultValue `'127.0.0.1'`
   */
  readonly host?: string;
  /** @defaultValue `7300` (0 picks a free port) */
  readonly port?: number;
  /** Request and error log; never given payloads or tokens. @defaultValue pino at `info` on stderr */
  readonly logger?: Logger;
  /** The registry `/metrics` prints, to add the server's gauges to an application's own. */
  readonly registry?: Registry;
  /**
   * Built workflow definitions (`workflow(...).build()`), with the input schemas they declare.
   * `POST /api/runs` submits a workflow given here as `client.submit` would, so an input its
   * schema refuses answers 400 `VALIDATION` with the schema's issues and nothing is written; a
   * workflow not given here is submitted from its stored definition, unchecked. The API
   * description carries each one's input JSON Schema where its schema library describes one.
   * @defaultValue `[]`
   */
  readonly workflows?: readonly WorkflowDefinition[];
};

/** Where a listening server can be reached. */
export interface ListeningAddress {
  readonly host: string;
  readonly port: number;
  /** `http://host:port`. */
  readonly url: string;
}

/**
 * Cyclone's HTTP API and dashboard. Embed its {@link CycloneServer.fetch} handler or
 * {@link CycloneServer.requestListener} in an application's server, or {@link CycloneServer.listen}
 * on a port of its own.
 */
export class CycloneServer {
  /** The client every request operates through. */
  readonly client: Client;
  /**
   * The Fetch API handler (`Request` in, `Response` out), for runtimes and frameworks that
   * take one. It serves every route, the dashboard and the auth rules.
   */
  readonly fetch: (request: Request) => Promise<Response>;
  /** A Node `http` request listener, for `http.createServer(server.requestListener)`. */
  readonly requestListener: (request: IncomingMessage, response: ServerResponse) => Promise<void>;
  private readonly ownsClient: boolean;
  private readonly hub: NotificationHub;
  private readonly options: ServerOptions;
  private http: Server | undefined;
  /** The host {@link CycloneServer.listen} was asked to bind. */
  private boundHost: string | undefined;

  constructor(options: ServerOptions) {
    if (!options.client && !options.connectionString) {
      throw new ServerOptionsError('createServer needs a client or a connectionString');
    }
    // Every option is checked before a client is opened, so a refused one leaves nothing open.
    const tokens = { token: options.token, readOnlyToken: options.readOnlyToken };
    // Checked here too, so an embedder learns at construction, not at the first listen.
    if (options.host !== undefined) assertSafeBind(options.host, tokens);
    const hosts = new HostPolicy(options.allowedHosts ?? [], () => this.served());
    const corsOrigins = new Set((options.corsOrigins ?? []).map(parseCorsOrigin));
    const workflows = registeredWorkflows(options.workflows);
    this.options = options;
    this.ownsClient = !options.client;
    this.client =
      options.client ??
      new Client({
        connectionString: options.connectionString,
        ...(options.schema === undefined ? {} : { schema: options.schema }),
        ...(options.pooler === undefined ? {} : { pooler: options.pooler }),
        ...(options.listenConnectionString === undefined
          ? {}
          : { listenConnectionString: options.listenConnectionString }),
      });
    const logger =
      options.logger ?? pino({ level: 'info', name: 'cyclone-server' }, process.stderr);
    this.hub = new NotificationHub(this.client, logger);
    const ctx: ServerContext = {
      client: this.client,
      tokens,
      hosts,
      corsOrigins,
      logger,
      hub: this.hub,
      metrics: new EngineMetrics(this.client, options.registry),
      workflows,
    };
    const { app } = buildApp(ctx);
    this.fetch = async (request) => app.fetch(request);
    this.requestListener = getRequestListener(app.fetch);
  }

  /**
   * Listens on `port` and `host` (the options' by default) and resolves once it serves:
   * `GET /healthz` answers 200 from then on.
   *
   * @throws InsecureBindError for a host other than loopback without a token, before binding
   */
  async listen(port?: number, host?: string): Promise<ListeningAddress> {
    const bindHost = host ?? this.options.host ?? DefaultHost;
    const bindPort = port ?? this.options.port ?? DefaultPort;
    assertSafeBind(bindHost, {
      token: this.options.token,
      readOnlyToken: this.options.readOnlyToken,
    });
    if (this.http) throw new ServerOptionsError('the server is already listening');
    const http = createAdaptorServer({ fetch: this.fetch }) as Server;
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(bindPort, bindHost, () => {
        http.off('error', reject);
        resolve();
      });
    });
    this.http = http;
    this.boundHost = bindHost;
    return this.address()!;
  }

  /** Where the server listens, as the host policy reads it; undefined while embedded. */
  private served(): ServedAddress | undefined {
    const address = this.http?.address() as AddressInfo | null | undefined;
    if (!address || this.boundHost === undefined) return undefined;
    return { hosts: [this.boundHost, address.address], port: address.port };
  }

  /** Where the server listens, or undefined before {@link CycloneServer.listen}. */
  address(): ListeningAddress | undefined {
    const address = this.http?.address() as AddressInfo | null | undefined;
    if (!address) return undefined;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return { host: address.address, port: address.port, url: `http://${host}:${address.port}` };
  }

  /**
   * Stops listening, ends open event streams, and closes the client if the server opened it
   * (a client it was given stays open).
   */
  async close(): Promise<void> {
    const http = this.http;
    this.http = undefined;
    if (http) {
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      // Event streams never end by themselves; idle keep-alive sockets would hold close() too.
      http.closeAllConnections();
      await closed;
    }
    await this.hub.close();
    if (this.ownsClient) await this.client.close();
  }
}

/**
 * Creates Cyclone's HTTP API and dashboard.
 *
 * @example
 * ```ts
 * import { createServer } from '@cyclone/server';
 *
 * const server = createServer({ connectionString: process.env.CYCLONE_DATABASE_URL! });
 * const { url } = await server.listen(7300);
 * console.log(`dashboard at ${url}`);
 * ```
 *
 * @throws InsecureBindError when `host` is not loopback and no token is given
 * @throws ServerOptionsError for an entry of `allowedHosts` or `corsOrigins` of no known form,
 *   or an entry of `workflows` that is not a definition or names a workflow twice
 */
export function createServer(options: ServerOptions): CycloneServer {
  return new CycloneServer(options);
}
