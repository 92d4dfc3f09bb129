/** The adapter of each system, by name. Each is imported only when used: peers are heavy to load. */
import type { SystemAdapter, SystemName } from '../shared/types.js';

export async function createAdapter(
  system: SystemName,
  url: string,
  poolSize: number,
): Promise<SystemAdapter> {
  switch (system) {
    case 'cyclone':
      return new (await import('./cyclone.js')).CycloneAdapter(url, poolSize);
    case 'graphile-worker':
      return new (await import('./graphile-worker.js')).GraphileWorkerAdapter(url, poolSize);
    case 'pg-boss':
      return new (await import('./pg-boss.js')).PgBossAdapter(url, poolSize);
    case 'dbos':
      return new (await import('./dbos.js')).DbosAdapter(url, poolSize);
  }
}
