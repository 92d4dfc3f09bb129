/** The adapter of each system, by name. Each is imported only when used: peers are heavy to load. */
import type { ConnectionConfig, SystemAdapter, SystemName } from '../shared/types.js';

export async function createAdapter(
  system: SystemName,
  url: string,
  poolSize: number,
  connection: ConnectionConfig = {},
): Promise<SystemAdapter> {
  if (system !== 'cyclone' && Object.keys(connection).length > 0)
    throw new Error(
      `--pooler, --listen-url and --poll-interval are for cyclone only, not ${system}`,
    );
  switch (system) {
    case 'cyclone':
      return new (await import('./cyclone.js')).CycloneAdapter(url, poolSize, connection);
    case 'graphile-worker':
      return new (await import('./graphile-worker.js')).GraphileWorkerAdapter(url, poolSize);
    case 'pg-boss':
      return new (await import('./pg-boss.js')).PgBossAdapter(url, poolSize);
    case 'dbos':
      return new (await import('./dbos.js')).DbosAdapter(url, poolSize);
  }
}
