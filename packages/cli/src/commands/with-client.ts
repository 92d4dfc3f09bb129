import { Client } from '@cyclone/client';
import { requireDatabaseUrl } from '../database-url.js';
import type { CommandContext } from './context.js';

/** Runs `work` with a client on the command's database, and closes it. */
export async function withClient<T>(
  ctx: CommandContext,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client({
    connectionString: requireDatabaseUrl(ctx.flags.databaseUrl),
    ...(ctx.flags.schema === undefined ? {} : { schema: ctx.flags.schema }),
  });
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}
