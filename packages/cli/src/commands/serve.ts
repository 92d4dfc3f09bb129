import { pino } from 'pino';
import { Client } from '@cyclone/client';
import { isCycloneError } from '@cyclone/core';
import { UsageError } from '../framework/cli-error.js';
import { requireDatabaseUrl } from '../database/database-url.js';
import { openPool, reachingDatabase } from '../database/database.js';
import { poolerOptions } from '../database/pooler-options.js';
import { awaitShutdown } from '../terminal/signals.js';
import type { CommandContext } from '../framework/context.js';
import { loadServerModule, portOption, type ServerModule } from '../serving/server-module.js';
import { loadWorkflowModule } from '../serving/workflow-module.js';

/** A non-empty option or environment variable, else undefined. */
function secret(option: unknown, variable: string | undefined): string | undefined {
  const value = typeof option === 'string' ? option : variable;
  return value === undefined || value === '' ? undefined : value;
}

/**
 * A repeatable option's values (`--allowed-host a --allowed-host b,c`), else the environment
 * variable's comma-separated list; empty entries dropped.
 */
function list(option: unknown, variable: string | undefined): string[] {
  const given = Array.isArray(option)
    ? option.map(String)
    : variable === undefined
      ? []
      : [variable];
  return given
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean);
}

/**
 * `cyclone serve`: the HTTP API and the dashboard, until SIGTERM or SIGINT. Binds 127.0.0.1
 * unless `--host` says otherwise; any other host needs `--token` (or `CYCLONE_TOKEN`). Answers
 * the `Host` names of `--allowed-host` besides its own address, and CORS for `--cors-origin`.
 * With `--workflows`, submits those workflows' runs checked against their input schemas.
 */
export async function serveCommand(ctx: CommandContext): Promise<number> {
  const { output } = ctx;
  const port = portOption(ctx.options.port);
  const host = String(ctx.options.host);
  const token = secret(ctx.options.token, process.env.CYCLONE_TOKEN);
  const readOnlyToken = secret(ctx.options.readOnlyToken, process.env.CYCLONE_READ_ONLY_TOKEN);
  const allowedHosts = list(ctx.options.allowedHost, process.env.CYCLONE_ALLOWED_HOSTS);
  const corsOrigins = list(ctx.options.corsOrigin, process.env.CYCLONE_CORS_ORIGINS);
  const url = requireDatabaseUrl(ctx.flags.databaseUrl);
  const connection = poolerOptions(ctx.flags);
  const workflowModule = ctx.options.workflows as string | undefined;
  const workflows = workflowModule === undefined ? [] : await loadWorkflowModule(workflowModule);
  const { createServer } = await loadServerModule();
  const logger = pino({ level: process.env.CYCLONE_LOG_LEVEL ?? 'info' }, process.stderr);
  const pool = openPool(url, 10);
  const client = new Client({
    pool,
    ...(ctx.flags.schema === undefined ? {} : { schema: ctx.flags.schema }),
    ...connection,
  });
  const shutdown = awaitShutdown();
  let server: ReturnType<typeof createServer> | undefined;
  try {
    // Refused before anything is bound or connected: an open port without a token is never up.
    server = createServerOrUsage(createServer, {
      client,
      host,
      logger,
      allowedHosts,
      corsOrigins,
      workflows,
      ...(token === undefined ? {} : { token }),
      ...(readOnlyToken === undefined ? {} : { readOnlyToken }),
    });
    await reachingDatabase(url, () => client.store.checkSchema());
    const address = await server.listen(port, host);
    output.out(
      ctx.flags.json
        ? JSON.stringify({
            event: 'serving',
            url: address.url,
            auth: token || readOnlyToken ? 'token' : 'none',
          })
        : `serving the API and the dashboard at ${address.url}${token || readOnlyToken ? ' (token required)' : ''}`,
    );
    await shutdown.signalled;
    return 0;
  } finally {
    await server?.close().catch(() => undefined);
    await client.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    shutdown.dispose();
  }
}

/**
 * `createServer`, with an entry of `--allowed-host` or `--cors-origin` of no known form, or a
 * `--workflows` module's bad entry, a usage error (exit 2).
 */
function createServerOrUsage(
  createServer: ServerModule['createServer'],
  options: Parameters<ServerModule['createServer']>[0],
): ReturnType<ServerModule['createServer']> {
  try {
    return createServer(options);
  } catch (error) {
    if (isCycloneError(error, 'SERVER_OPTIONS')) throw new UsageError(error.message);
    throw error;
  }
}
