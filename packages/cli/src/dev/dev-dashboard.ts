import type { Logger } from 'pino';
import type { Client } from '@cyclone/client';
import { RefusedError } from '../framework/cli-error.js';
import { loadServerModule } from '../serving/server-module.js';

/** Where `cyclone dev` serves the dashboard and the HTTP API: this machine only, no token. */
export const DevHost = '127.0.0.1';

/** The dashboard and HTTP API `cyclone dev` serves beside its engine. */
export interface DevDashboard {
  /** The address it answers at, e.g. `http://127.0.0.1:7300`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves the dashboard and the HTTP API on `client`'s database, as `cyclone serve` does, on
 * 127.0.0.1 at `port` (0 picks a free one). A port already taken is a refusal that says how to
 * choose another or go without, rather than a stack trace.
 */
export async function serveDevDashboard(
  client: Client,
  port: number,
  logger: Logger,
): Promise<DevDashboard> {
  const { createServer } = await loadServerModule();
  const server = createServer({ client, host: DevHost, logger });
  try {
    const { url } = await server.listen(port, DevHost);
    return { url, close: () => server.close() };
  } catch (error) {
    await server.close().catch(() => undefined);
    if ((error as { code?: unknown }).code === 'EADDRINUSE') {
      throw new RefusedError(
        `port ${port} on ${DevHost} is taken (another cyclone dev or serve?): choose another with --port, or pass --no-dashboard`,
        'PORT_TAKEN',
      );
    }
    throw error;
  }
}
