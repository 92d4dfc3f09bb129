import { migrate, migrationStatus } from '@cyclone/store-postgres';
import { requireDatabaseUrl } from '../database/database-url.js';
import { openPool, reachingDatabase } from '../database/database.js';
import { poolerOptions } from '../database/pooler-options.js';
import { table } from '../terminal/output.js';
import type { CommandContext } from '../framework/context.js';

/** `cyclone migrate [--status]`: applies Cyclone's migrations, or lists applied and pending ones. */
export async function migrateCommand(ctx: CommandContext): Promise<number> {
  const url = requireDatabaseUrl(ctx.flags.databaseUrl);
  // Checked like every command's; migrate() itself keeps no session state, so it runs through a
  // transaction-mode pooler as it does on a direct connection.
  poolerOptions(ctx.flags);
  const pool = openPool(url, 1);
  const schema = ctx.flags.schema;
  try {
    if (ctx.options.status) {
      const status = await reachingDatabase(url, () => migrationStatus({ pool, schema }));
      printStatus(ctx, status.migrations);
      return 0;
    }
    const { applied } = await reachingDatabase(url, () => migrate({ pool, schema }));
    if (ctx.flags.json) ctx.output.out(JSON.stringify({ applied }));
    else
      ctx.output.out(applied === 0 ? 'database is up to date' : `applied ${applied} migration(s)`);
    return 0;
  } finally {
    await pool.end();
  }
}

type Migration = Awaited<ReturnType<typeof migrationStatus>>['migrations'][number];

function printStatus(ctx: CommandContext, migrations: readonly Migration[]): void {
  if (ctx.flags.json) {
    ctx.output.out(JSON.stringify(migrations, null, 2));
    return;
  }
  ctx.output.out(
    table(
      ['migration', 'state', 'generated'],
      migrations.map((m) => [
        m.tag,
        m.applied
          ? m.changedSinceApplied
            ? 'applied (file changed since)'
            : 'applied'
          : 'pending',
        m.createdAt.toISOString(),
      ]),
    ),
  );
  const pending = migrations.filter((m) => !m.applied).length;
  ctx.output.out(
    pending === 0
      ? `\nall ${migrations.length} migration(s) applied`
      : `\n${pending} pending: run \`cyclone migrate\` to apply`,
  );
}
