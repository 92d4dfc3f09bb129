import { migrate } from '@cyclone/store-postgres';
import type { CommandContext } from './context.js';
import { requireDatabaseUrl } from '../database-url.js';

/** `cyclone migrate`: applies Cyclone's migrations to the database. */
export async function migrateCommand(ctx: CommandContext): Promise<number> {
  const connectionString = requireDatabaseUrl(ctx.flags.databaseUrl);
  const { applied } = await migrate({ connectionString, schema: ctx.flags.schema });
  if (ctx.flags.json) ctx.output.out(JSON.stringify({ applied }));
  else ctx.output.out(applied === 0 ? 'database is up to date' : `applied ${applied} migration(s)`);
  return 0;
}
