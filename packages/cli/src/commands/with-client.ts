import { Client } from '@cyclone/client';
import { requireDatabaseUrl } from '../database/database-url.js';
import { openPool, reachingDatabase } from '../database/database.js';
import { poolerOptions } from '../database/pooler-options.js';
import type { CommandContext } from '../framework/context.js';

/** Runs `work` with a client on the command's database, and closes it. */
export async function withClient<T>(
  ctx: CommandContext,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  const url = requireDatabaseUrl(ctx.flags.databaseUrl);
  const options = poolerOptions(ctx.flags);
  const pool = openPool(url);
  const client = new Client({
    pool,
    ...(ctx.flags.schema === undefined ? {} : { schema: ctx.flags.schema }),
    ...options,
  });
  try {
    return await reachingDatabase(url, () => work(client));
  } finally {
    await client.close();
    await pool.end();
  }
}
